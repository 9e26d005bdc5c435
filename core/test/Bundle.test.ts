/**
 * The library as a bundler sees it. A worker without Node compatibility loads only a bundle with
 * no `node:` import, so the streaming Node cipher must be reachable only under the `node`
 * condition (package.json `imports`, `#stream-cipher`); a single-file bundle inlines dynamic
 * imports, so a lazy `import()` alone does not keep it out. And what a browser app's bundle keeps:
 * a storage-only app over `LighthouseStorage.layer` none of `Payment` and viem, even through
 * the package's entry, where esbuild keeps every export of a namespace that the program reads.
 */
import path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { build, type Metafile } from "esbuild"

const root = path.resolve(import.meta.dirname, "..", "..")
const source = "@lighthouse-effect/source"

/** The library's entry bundled into one file, as wrangler does for a worker or esbuild for Node. */
const bundle = async (target: "worker" | "node"): Promise<Metafile> => {
  const { metafile } = await build({
    absWorkingDir: root,
    entryPoints: ["core/src/index.ts"],
    bundle: true,
    write: false,
    format: "esm",
    logLevel: "silent",
    metafile: true,
    // A worker as wrangler bundles it: esbuild's browser platform with these conditions. `node:`
    // modules stay external, so that the test names them instead of failing to resolve them.
    ...(target === "worker"
      ? { platform: "browser", conditions: ["workerd", "worker", "browser", source], external: ["node:*"] }
      : { platform: "node", conditions: [source] })
  })
  return metafile
}

const imported = (metafile: Metafile): Array<string> =>
  Object.values(metafile.outputs).flatMap((output) => output.imports.map((i) => i.path))

const crypto = "core/src/crypto/"

/** Each module of core/src/crypto in the bundle, with the crypto modules it really imports. */
const cryptoGraph = (metafile: Metafile): Record<string, Array<string>> =>
  Object.fromEntries(
    Object.entries(metafile.inputs)
      .filter(([file]) => file.startsWith(crypto))
      .map(([file, input]) => [
        file,
        [...new Set(input.imports.map((i) => i.path))].filter((p) => p.startsWith(crypto)).sort()
      ])
  )

/** The files of the one output whose bytes are in it (a module kept only for its side effects has none). */
const keptFiles = (metafile: Metafile): Array<string> =>
  Object.entries(Object.values(metafile.outputs)[0]!.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([file]) => file)

const paymentCode = /node_modules\/(viem|ox|abitype)\/|core\/src\/(Payment|Signer)\.ts$|core\/src\/payment\//

/** `contents` (an ES module in the repository's root) bundled for a browser into one minified file. */
const bundleForBrowser = async (contents: Array<string>): Promise<Metafile> => {
  const { metafile } = await build({
    absWorkingDir: root,
    stdin: { resolveDir: root, contents: contents.join("\n") },
    bundle: true,
    minify: true,
    write: false,
    format: "esm",
    logLevel: "silent",
    metafile: true,
    platform: "browser",
    conditions: ["browser", source],
    external: ["node:*"]
  })
  return metafile
}

/** An encrypted upload over one of the package's browser layers, imported from its entry as an app does. */
const uploadOver = (layer: string) => [
  `import * as Effect from "effect/Effect"`,
  `import { Lighthouse, LighthouseStorage, Upload } from "lighthouse-effect"`,
  "export const upload = (bytes, options) =>",
  `  Effect.runPromise(Upload.Upload.use((u) => u.encryptedBuffer(bytes, options)).pipe(Effect.provide(${layer}())))`
]

describe("the bundled library", () => {
  it("for a worker (conditions workerd, worker, browser) imports nothing, node: modules included", async () => {
    const metafile = await bundle("worker")
    expect(imported(metafile)).toEqual([])
    expect(
      Object.keys(metafile.inputs)
        .filter((file) => file.startsWith(crypto))
        .sort()
    ).toEqual([
      "core/src/crypto/FileCipher.ts",
      "core/src/crypto/FileCipherWeb.ts",
      "core/src/crypto/FileFormat.ts",
      "core/src/crypto/SegmentWorkers.ts",
      "core/src/crypto/Shamir.ts",
      "core/src/crypto/StreamingGcm.ts"
    ])
  })

  it("for Node streams with node:crypto, and its cipher modules form no circle", async () => {
    const metafile = await bundle("node")
    expect(imported(metafile)).toContain("node:crypto")
    expect(cryptoGraph(metafile)).toEqual({
      "core/src/crypto/FileCipher.ts": [
        "core/src/crypto/FileCipherNode.ts",
        "core/src/crypto/FileCipherWeb.ts",
        "core/src/crypto/FileFormat.ts"
      ],
      "core/src/crypto/FileCipherNode.ts": ["core/src/crypto/FileFormat.ts"],
      "core/src/crypto/FileCipherWeb.ts": [
        "core/src/crypto/FileFormat.ts",
        "core/src/crypto/SegmentWorkers.ts",
        "core/src/crypto/StreamingGcm.ts"
      ],
      "core/src/crypto/FileFormat.ts": [],
      "core/src/crypto/SegmentWorkers.ts": [],
      "core/src/crypto/Shamir.ts": [],
      "core/src/crypto/StreamingGcm.ts": ["core/src/crypto/FileFormat.ts"]
    })
  })

  it("for an encrypted upload keeps no payment, wallet or CBOR codec code", async () => {
    // The program of the bundle bench (scripts/bench/bundle.ts), which the 110 KiB target is about.
    const metafile = await bundleForBrowser([
      ...["Effect", "FileSystem", "Layer"].map((name) => `import * as ${name} from "effect/${name}"`),
      ...["Auth", "KeyNodes", "KeyShards", "Lighthouse", "LighthouseConfig", "Upload"].map(
        (name) => `import * as ${name} from "./core/src/${name}.ts"`
      ),
      "const base = Layer.mergeAll(LighthouseConfig.layer(), Lighthouse.httpLayer, FileSystem.layerNoop({}))",
      "const layer = Upload.layer.pipe(Layer.provide(KeyShards.layer.pipe(Layer.provideMerge(Auth.layer()))),",
      "  Layer.provide(KeyNodes.layer), Layer.provideMerge(base))",
      "export const upload = (bytes, options) =>",
      "  Effect.runPromise(Upload.Upload.use((u) => u.encryptedBuffer(bytes, options)).pipe(Effect.provide(layer)))"
    ])
    const kept = keptFiles(metafile)
    const unwanted =
      /node_modules\/(viem|ox|abitype|cborg|@ipld\/dag-cbor)\/|core\/src\/(Payment|Signer)\.ts$|core\/src\/payment\//
    expect(kept.filter((file) => unwanted.test(file))).toEqual([])
    expect(kept).toContain("core/src/Upload.ts")
  })

  it("over LighthouseStorage.layer, from the package's entry, keeps no payment or wallet code", async () => {
    const kept = keptFiles(await bundleForBrowser(uploadOver("LighthouseStorage.layer")))
    expect(kept.filter((file) => paymentCode.test(file))).toEqual([])
    expect(kept).toEqual(expect.arrayContaining(["core/src/Upload.ts", "core/src/Download.ts", "core/src/Ipns.ts"]))
  })

  it("over Lighthouse.layer keeps Payment, which brings viem", async () => {
    const kept = keptFiles(await bundleForBrowser(uploadOver("Lighthouse.layer")))
    expect(kept).toContain("core/src/Payment.ts")
    expect(kept.some((file) => file.includes("node_modules/viem/"))).toBe(true)
  })
})
