/**
 * Workers bundled as Cloudflare's tools bundle them: one ES module for the browser platform under
 * the conditions `workerd`, `worker`, `browser` (wrangler's esbuild settings; Cloudflare's Vite
 * plugin resolves the same), here with the library's sources (`@lighthouse-effect/source`). A
 * bundle that still imports anything (a `node:` module) is refused before workerd sees it.
 */
import { mkdir, readFile } from "node:fs/promises"
import { join } from "node:path"
import { build } from "esbuild"
import { build as viteBuild } from "vite"
import { root, source } from "./processes.ts"

const conditions = ["workerd", "worker", "browser", source]

/** A worker's entry: a file, or a module's text (resolved from this folder, as if it lay here). */
export type Entry = { readonly path: string } | { readonly contents: string; readonly name: string }

class ImportsLeft extends Error {
  constructor(bundler: string, imports: ReadonlyArray<string>) {
    super(`the ${bundler} bundle of a worker still imports ${imports.join(", ")}`)
    this.name = "ImportsLeft"
  }
}

/** Bundles with esbuild into `outDir/worker.js`; the file's path. */
export const bundleWithEsbuild = async (entry: Entry, outDir: string): Promise<string> => {
  const outfile = join(outDir, "worker.js")
  const { metafile } = await build({
    absWorkingDir: root,
    ...("path" in entry
      ? { entryPoints: [entry.path] }
      : {
          stdin: { contents: entry.contents, sourcefile: entry.name, resolveDir: import.meta.dirname, loader: "ts" }
        }),
    bundle: true,
    format: "esm",
    platform: "browser",
    conditions,
    outfile,
    metafile: true,
    logLevel: "silent"
  })
  const imports = Object.values(metafile.outputs).flatMap((output) => output.imports.map((i) => i.path))
  if (imports.length > 0) throw new ImportsLeft("esbuild", imports)
  return outfile
}

/** Bundles a worker file with Vite (library mode, one chunk) into `outDir/worker.js`; the file's path. */
export const bundleWithVite = async (entry: string, outDir: string): Promise<string> => {
  await mkdir(outDir, { recursive: true })
  const output = await viteBuild({
    configFile: false,
    logLevel: "silent",
    root,
    resolve: { conditions: [...conditions, "module"] },
    build: {
      outDir,
      emptyOutDir: true,
      minify: false,
      lib: { entry, formats: ["es"], fileName: "worker" },
      rolldownOptions: { output: { codeSplitting: false } }
    }
  })
  const chunks = (Array.isArray(output) ? output : [output]).flatMap((result) =>
    "output" in result ? result.output : []
  )
  // A dynamic import inlined into the one chunk is listed as an import of that chunk itself.
  const imports = chunks.flatMap((chunk) =>
    chunk.type === "chunk"
      ? [...chunk.imports, ...chunk.dynamicImports].filter((imported) => imported !== chunk.fileName)
      : []
  )
  if (imports.length > 0) throw new ImportsLeft("Vite", imports)
  return join(outDir, "worker.js")
}

/** The heading of the section of docs/runtimes.md whose first ```ts block is the Cloudflare Worker example. */
export const readmeWorkerHeading = "## A Cloudflare Worker"

/** The Cloudflare Worker example of docs/runtimes.md, as an entry. */
export const readmeWorker = async (): Promise<Entry> => {
  const readme = await readFile(join(root, "docs/runtimes.md"), "utf8")
  const section = readme.indexOf(`\n${readmeWorkerHeading}\n`)
  const block = section < 0 ? null : /\n```ts\n([\s\S]*?)\n```\n/.exec(readme.slice(section))
  if (block === null)
    throw new Error(`docs/runtimes.md has no \`${readmeWorkerHeading}\` section with a \`\`\`ts block`)
  return { contents: block[1]!, name: "docs/runtimes.md (Cloudflare Worker)" }
}
