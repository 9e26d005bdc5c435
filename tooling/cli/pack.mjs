// Packs the command line as its own package, `lighthouse-effect-cli` (bins `lighthouse-effect` and
// `lhe`), beside the library's tarball: `npm run pack:cli -- DIR` writes both into DIR and prints
// their paths, one a line.
//
// Why a second package: the command line needs what a client of the library does not (the Node
// platform layer, viem for the wallet, the simulated network's optional peers for `dev`), and a
// user of the library must not install them. Why written at pack time: `cli/` cannot be a
// workspace package on disk, since its sources import the library by its name and npm workspaces
// do not link the root package; from inside the root package that name resolves to the root's own
// `exports`. So the manifest is written here, into a temporary folder, with the compiled JS
// (`cli/tsconfig.build.json`, typed against the root's freshly built `dist/`), and packed from it.
//
// Its dependencies: the library at the same version; every package the compiled command line
// imports; the library's optional peers (all but Hardhat: `dev` runs without the chain and says
// so), each at the exact version this repository is tested with.
import "../requireNode.mjs"
import { spawnSync } from "node:child_process"
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

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

/** The version this repository is tested with: its exact pin, else the one installed. */
const testedVersion = (name) =>
  own.devDependencies[name] ??
  JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")).version

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`); undefined for builtins. */
const packageOf = (specifier) => {
  if (specifier.startsWith("node:") || specifier.startsWith(".") || specifier.startsWith("#")) return undefined
  const parts = specifier.split("/")
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]
}

/** Every package the compiled files under `dir` import, statically or lazily. */
const importedPackages = (dir) => {
  const names = new Set()
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".js")) continue
    const source = readFileSync(join(entry.parentPath, entry.name), "utf8")
    for (const match of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^import\s*)["']([^"']+)["']/gm)) {
      const name = packageOf(match[1])
      if (name !== undefined) names.add(name)
    }
  }
  return [...names].sort()
}

const manifest = (dist) => {
  const imported = importedPackages(dist).filter((name) => name !== own.name)
  const peers = Object.keys(own.peerDependencies).filter((name) => name !== "hardhat")
  const names = [...new Set([...imported, ...peers])].sort()
  return {
    name: "lighthouse-effect-cli",
    version: own.version,
    description: "The lighthouse-effect command line: Lighthouse storage from a shell or a script",
    type: "module",
    license: own.license,
    engines: { node: ">=22.19" },
    bin: { "lighthouse-effect": "dist/bin.js", lhe: "dist/bin.js" },
    files: ["dist"],
    dependencies: {
      [own.name]: own.version,
      ...Object.fromEntries(names.map((name) => [name, testedVersion(name)]))
    }
  }
}

const npmCli = process.env.npm_execpath ?? stop("npm", "run it as npm run pack:cli -- DIR")
const npm = (step, args, cwd) => run(step, process.execPath, [npmCli, ...args, "--loglevel=error"], cwd)

/** The tarball `npm pack` wrote into `destination` (npm prints its file name last). */
const packed = (output, destination) => {
  const name = output.trim().split("\n").at(-1)
  const file = join(destination, name ?? "")
  if (name === undefined || !existsSync(file)) stop("npm pack", `no tarball named in:\n${output}`)
  return file
}

export const packBoth = (destination) => {
  // The library first: its `prepack` builds `dist/`, whose declarations the command line is typed against.
  const library = packed(npm("npm pack (library)", ["pack", "--pack-destination", destination], root), destination)
  const stage = mkdtempSync(join(tmpdir(), "lighthouse-effect-cli-"))
  try {
    const dist = join(stage, "dist")
    run("tsc -p cli/tsconfig.build.json", process.execPath, [
      join(root, "node_modules/typescript/bin/tsc"),
      "-p",
      join(root, "cli/tsconfig.build.json"),
      "--outDir",
      dist
    ])
    writeFileSync(join(stage, "package.json"), `${JSON.stringify(manifest(dist), null, 2)}\n`)
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
  const { library, cli } = packBoth(destination)
  process.stdout.write(`${library}\n${cli}\n`)
}
