// Packs the command line as its own package, `lighthouse-effect-cli` (bins `lighthouse-effect` and
// `lhe`), beside the library's tarball: `npm run pack:cli -- DIR` writes both into DIR and prints
// their paths, one a line.
//
// Why a second package: the command line needs what a client of the library does not (the Node
// platform layer, viem for the wallet, the simulated network's optional peers for `dev`), and a
// user of the library must not install them.
//
// Why one bundle: a command's start-up is Node's module loading. Installed as packages, `--help`
// loaded some 1 300 files (Effect's modules one by one, the library's, two copies of viem when npm
// resolved the library's range to a newer one than the pin) and took 1.5 s over Node's own start
// on this machine. So the command line, the library (from its sources, under the
// `@lighthouse-effect/source` condition) and every package they import are bundled by esbuild into
// `dist/`: ESM chunks, minified (names kept: errors and services are known by them), split at
// every dynamic `import()` so what one command alone uses (the simulated network of `dev`, a
// command's handler) is read only by it. The package then has no dependencies but Hardhat, which
// stays an import (it is not shipped: `dev --chain` needs it installed; `dev` without a chain runs).
// Bundled packages' licence comments are kept at the end of each chunk (esbuild's `eof`).
import "../requireNode.mjs"
import { spawnSync } from "node:child_process"
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { isBuiltin } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"

const root = fileURLToPath(new URL("../..", import.meta.url))
const own = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))

const stop = (step, output) => {
  process.stderr.write(`pack:cli: ${step} failed\n${output}\n`)
  process.exit(1)
}

const run = (step, command, args, cwd) => {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
  if (result.status !== 0) stop(step, `${result.stdout ?? ""}${result.stderr ?? ""}${result.error ?? ""}`)
  return result.stdout
}

/** What the bundle leaves as imports: not shipped, loaded only where a command needs it. */
const external = ["hardhat", "hardhat/*"]

/**
 * The library's entries (`lighthouse-effect`, `lighthouse-effect/node`) in the command line's
 * imports, each name taken from the module that defines it: `import { Upload } from
 * "lighthouse-effect"` becomes `import * as Upload from ".../core/src/Upload.ts"`. esbuild splits
 * by module: a chunk loads every module reachable from the modules it holds, and an entry reaches
 * every module it re-exports, so through the entry `upload` reached `Payment` and viem (about
 * 400 KB), which the payment commands keep in the bundle. Names the entry defines itself, and
 * every other import, are left as written.
 */
const ownNames = (entry) => {
  const names = new Map()
  const text = readFileSync(entry, "utf8")
  const at = (relative) => join(dirname(entry), relative)
  for (const [, name, file] of text.matchAll(/^export \* as (\w+) from "(\.[^"]+)"/gm))
    names.set(name, { file: at(file), namespace: true })
  for (const [, list, file] of text.matchAll(/^export \{([^}]*)\} from "(\.[^"]+)"/gm))
    for (const item of list.split(",").map((part) => part.trim()))
      if (item !== "" && !item.startsWith("type ")) {
        const [original, alias = original] = item.split(/\s+as\s+/)
        names.set(alias, { file: at(file), original })
      }
  return names
}

const entries = new Map(
  [".", "./node"].map((subpath) => [
    subpath === "." ? own.name : `${own.name}/${subpath.slice(2)}`,
    ownNames(join(root, own.exports[subpath]["@lighthouse-effect/source"]))
  ])
)

/** One `import { … } from "<entry>"` as imports from the modules defining each name. */
const direct = (statement, bindings, entry) => {
  const names = entries.get(entry)
  const kept = []
  const lines = []
  for (const binding of bindings.split(",").map((part) => part.trim())) {
    if (binding === "" || binding.startsWith("type ")) continue
    const [name, alias = name] = binding.split(/\s+as\s+/)
    const found = names.get(name)
    if (found === undefined) kept.push(binding)
    else if (found.namespace) lines.push(`import * as ${alias} from ${JSON.stringify(found.file)}`)
    else lines.push(`import { ${found.original} as ${alias} } from ${JSON.stringify(found.file)}`)
  }
  if (lines.length === 0) return statement
  return [...lines, ...(kept.length === 0 ? [] : [`import { ${kept.join(", ")} } from ${JSON.stringify(entry)}`])].join(
    "; "
  )
}

const directImports = {
  name: "direct-library-imports",
  setup(build) {
    build.onLoad({ filter: /[\\/]cli[\\/]src[\\/].*\.ts$/ }, (args) => ({
      contents: readFileSync(args.path, "utf8").replace(
        /^import \{([^}]*)\} from "(lighthouse-effect(?:\/node)?)"/gm,
        (statement, bindings, entry) => direct(statement, bindings, entry)
      ),
      loader: "ts"
    }))
  }
}

/**
 * Node's built-in modules through `require`, not `import`: importing a built-in as an ES module
 * reads every export to fill its namespace, and `node:http`'s include getters that load undici
 * (its `WebSocket`, `MessageEvent`): a script of `import "node:http"` alone took 0.11 s of CPU
 * over `node -e 0` here, one of `require("node:http")` none (in `upload`, about 0.03 s saved).
 * Each built-in becomes a CommonJS module of one line, whose exports esbuild reads only when used.
 */
const requiredBuiltins = {
  name: "required-builtins",
  setup(build) {
    build.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      if (!isBuiltin(args.path)) return undefined
      // The `require` inside the one-line module stays a call of Node's `require` (the banner's).
      if (args.namespace === "builtin") return { path: args.path, external: true }
      return { path: args.path, namespace: "builtin" }
    })
    build.onLoad({ filter: /.*/, namespace: "builtin" }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)})`,
      loader: "js"
    }))
  }
}

/** The command line bundled into `dist` (see the header): the package's `dist/` as it ships. */
export const bundle = (dist) =>
  build({
    absWorkingDir: root,
    entryPoints: [join(root, "cli/src/bin.ts")],
    outdir: dist,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node22",
    conditions: ["@lighthouse-effect/source"],
    minify: true,
    keepNames: true,
    legalComments: "eof",
    metafile: true,
    external,
    plugins: [directImports, requiredBuiltins],
    // CommonJS packages inside an ES module bundle call `require` for Node's built-ins.
    banner: {
      js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);'
    },
    logLevel: "error"
  })

const manifest = () => ({
  name: "lighthouse-effect-cli",
  version: own.version,
  description: "The lighthouse-effect command line: Lighthouse storage from a shell or a script",
  type: "module",
  license: own.license,
  engines: { node: ">=22.19" },
  bin: { "lighthouse-effect": "dist/bin.js", lhe: "dist/bin.js" },
  files: ["dist"]
})

// Asked for when packing, not on import: `bundle` alone (a test's) runs without npm.
const npmCli = () => process.env.npm_execpath ?? stop("npm", "run it as npm run pack:cli -- DIR")
const npm = (step, args, cwd) => run(step, process.execPath, [npmCli(), ...args, "--loglevel=error"], cwd)

/** The tarball `npm pack` wrote into `destination` (npm prints its file name last). */
const packed = (output, destination) => {
  const name = output.trim().split("\n").at(-1)
  const file = join(destination, name ?? "")
  if (name === undefined || !existsSync(file)) stop("npm pack", `no tarball named in:\n${output}`)
  return file
}

export const packBoth = async (destination) => {
  // The library first: its `prepack` builds `dist/`, whose declarations the command line is checked against.
  const library = packed(npm("npm pack (library)", ["pack", "--pack-destination", destination], root), destination)
  const stage = mkdtempSync(join(tmpdir(), "lighthouse-effect-cli-"))
  try {
    // The command line still type-checks against the library's built declarations, as a user's code
    // would (`cli/tsconfig.build.json`: the sources without the condition, so through `dist/`).
    run("tsc -p cli/tsconfig.build.json", process.execPath, [
      join(root, "node_modules/typescript/bin/tsc"),
      "-p",
      join(root, "cli/tsconfig.build.json"),
      "--noEmit"
    ])
    await bundle(join(stage, "dist"))
    writeFileSync(join(stage, "package.json"), `${JSON.stringify(manifest(), null, 2)}\n`)
    copyFileSync(join(root, "cli/README.md"), join(stage, "README.md"))
    copyFileSync(join(root, "LICENSE"), join(stage, "LICENSE"))
    const cli = packed(npm("npm pack (command line)", ["pack", "--pack-destination", destination], stage), destination)
    return { library, cli }
  } finally {
    rmSync(stage, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const destination = resolve(process.argv[2] ?? stop("arguments", "usage: npm run pack:cli -- DIR"))
  const { library, cli } = await packBoth(destination)
  process.stdout.write(`${library}\n${cli}\n`)
}
