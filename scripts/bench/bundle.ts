/**
 * Browser bundle size of the upload-and-encrypt path, next to the provider SDK's.
 *
 * Both sides are bundled the same way (esbuild, browser platform, ESM, minified,
 * tree-shaken) from an entry that uses only what an encrypted upload needs:
 * here `Upload.encryptedBuffer` with the key nodes, there `uploadEncrypted`.
 * Sizes are of the minified output and of its gzip (level 9).
 *
 * Our program is bundled twice, as written two ways: importing Effect's modules by path
 * (`effect/Effect`), and through the `effect` barrel (`import { Effect } from "effect"`). esbuild
 * keeps every export of a namespace re-exported by a barrel (`export * as Effect`) once a program
 * reads a property of it, so the second carries all of `Effect`, `Layer` and `FileSystem`
 * whatever the library does; the first is what the library itself costs. Then the same upload
 * over each browser layer, imported from the package's entry (`lighthouse-effect`) as an app
 * does: `LighthouseStorage.layer` (no `Payment`) and `Lighthouse.layer`.
 *
 * @since 0.1.0
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { build } from "esbuild"
import * as Report from "./report.ts"

export interface BundleRow {
  readonly name: string
  readonly minified: number
  readonly gzip: number
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

const program = (effectImports: string) => `
${effectImports}
import * as Auth from "${root}/core/src/Auth.ts"
import * as Config from "${root}/core/src/LighthouseConfig.ts"
import * as KeyShards from "${root}/core/src/KeyShards.ts"
import * as Lighthouse from "${root}/core/src/Lighthouse.ts"
import * as Nodes from "${root}/core/src/KeyNodes.ts"
import * as Upload from "${root}/core/src/Upload.ts"

const base = Layer.mergeAll(Config.layer(), Lighthouse.httpLayer, FileSystem.layerNoop({}))
const layer = Upload.layer.pipe(
  Layer.provide(KeyShards.layer.pipe(Layer.provideMerge(Auth.layer()))),
  Layer.provide(Nodes.layer),
  Layer.provideMerge(base)
)
export const uploadEncrypted = (bytes, options) =>
  Effect.runPromise(Upload.Upload.use((u) => u.encryptedBuffer(bytes, options)).pipe(Effect.provide(layer)))
`

const ours = program(
  ["Effect", "FileSystem", "Layer"].map((name) => `import * as ${name} from "effect/${name}"`).join("\n")
)

const oursBarrel = program(`import { Effect, FileSystem, Layer } from "effect"`)

const STORAGE_ROW = "lighthouse-effect Upload.encryptedBuffer over LighthouseStorage.layer"

/** The size target of the encrypted upload's bundle (gzip), for the library's own cost. */
const TARGET_GZIP = 110 * 1024

/** The same upload over one of the package's browser layers, imported from its entry (the sources of `lighthouse-effect`) as an app does. */
const overLayer = (layer: string) => `
import * as Effect from "effect/Effect"
import { Lighthouse, LighthouseStorage, Upload } from "${root}/core/src/index.ts"

export const uploadEncrypted = (bytes, options) =>
  Effect.runPromise(Upload.Upload.use((u) => u.encryptedBuffer(bytes, options)).pipe(Effect.provide(${layer}())))
`

const theirs = `export { uploadEncrypted } from "@lighthouse-web3/sdk"`

const bundle = async (name: string, source: string, dir: string): Promise<BundleRow> => {
  const entry = path.join(dir, `${name.replace(/\W+/g, "-")}.mjs`)
  await writeFile(entry, source)
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    // The sources, as the package's own `#stream-cipher` import names them without a build.
    conditions: ["@lighthouse-effect/source", "browser"],
    target: "es2022",
    write: false,
    logLevel: "silent",
    absWorkingDir: root,
    nodePaths: [path.join(root, "node_modules")],
    // The SDK reaches Node modules through eval("require"); those never enter a bundle.
    external: ["node:*"],
    define: { "process.env.NODE_ENV": '"production"', global: "globalThis" }
  })
  const code = result.outputFiles[0]!.contents
  return { name, minified: code.byteLength, gzip: gzipSync(code, { level: 9 }).byteLength }
}

export const run = async (): Promise<ReadonlyArray<BundleRow>> => {
  const dir = await mkdtemp(path.join(tmpdir(), "lh-bundle-"))
  try {
    return [
      await bundle("lighthouse-effect Upload.encryptedBuffer", ours, dir),
      await bundle("lighthouse-effect Upload.encryptedBuffer, effect barrel imports", oursBarrel, dir),
      await bundle(STORAGE_ROW, overLayer("LighthouseStorage.layer"), dir),
      await bundle(
        "lighthouse-effect Upload.encryptedBuffer over Lighthouse.layer",
        overLayer("Lighthouse.layer"),
        dir
      ),
      await bundle("@lighthouse-web3/sdk 0.4.7 uploadEncrypted", theirs, dir)
    ]
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`

export const markdownSection = (rows: ReadonlyArray<BundleRow>): string => {
  const here = rows[0]
  const storage = rows.find((r) => r.name === STORAGE_ROW)
  const met = (row: BundleRow | undefined) => (row !== undefined && row.gzip <= TARGET_GZIP ? "met" : "**not met**")
  const there = rows.at(-1)
  const ratio = here !== undefined && there !== undefined ? here.gzip / there.gzip : Number.NaN
  return [
    "## Browser bundle",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} with \`npx tsx --conditions=@lighthouse-effect/source scripts/bench/bundle.ts\` (esbuild, browser, ESM, minified, tree-shaken; gzip level 9).`,
    "",
    "| bundle | minified | gzip |",
    "|---|---|---|",
    ...rows.map((r) => `| ${r.name} | ${kib(r.minified)} | ${kib(r.gzip)} |`),
    "",
    `Ours (first row, gzip) ≤ 110 KiB: ${met(here)}. ` +
      "The second row is the same program importing from the `effect` barrel: esbuild then keeps every export of " +
      "`Effect`, `Layer` and `FileSystem`, which a program avoids by importing `effect/Effect` and the like.",
    "",
    `The third and fourth rows are the same upload over a whole browser layer, imported from the package's entry as an app does: ` +
      `\`LighthouseStorage.layer\` (every service but \`Payment\`) ≤ 110 KiB: ${met(storage)}; ` +
      "`Lighthouse.layer`, whose `Payment` brings viem. The storage layer builds `Download`, `Files`, `Ipns` and " +
      "`AccessControl` beside `Upload`: about half of what it adds to the first row (minified) is the verified " +
      "download's own code (its block walker and verifiers, and dag-pb decoding); the rest is the other services " +
      "and their response schemas. UnixFS and CAR headers are read by the library's own small codecs.",
    "",
    `Ratio (gzip, ours / provider's): ${ratio.toFixed(2)}× — target ≤ 0.33×: ${ratio <= 1 / 3 ? "met" : "**not met**"}.`,
    ""
  ].join("\n")
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const section = markdownSection(await run())
  console.log(section)
  Report.writeSection(section)
}
