// The command line's install test (`npm run test:cli-package`, part of `npm test`): the README's
// one command, as a user would run it. It packs the library and the command line
// (`pack.mjs`), and in an empty folder, on Node 22.19 (the oldest the command line supports),
// preferring npm's cache (a dependency the cache lacks comes from the registry, as for a user:
// `--offline` passed only where earlier installs had filled the cache; with an empty one npx
// failed with ENOTCACHED on a version newer than the lockfile's), runs
// `npx --yes --package <library.tgz> --package <cli.tgz> lighthouse-effect --help`, then a
// script's whole session (`session.mjs`) with the bins npx installed on its PATH.
// Quiet when it passes (one summary line); on a failure it prints the failing step's output.
// npx keeps what it installed under npm's cache (`_npx/`); the entry for these tarballs is removed.
import "../requireNode.mjs"
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { packBoth } from "./pack.mjs"

const root = fileURLToPath(new URL("../..", import.meta.url))
const work = mkdtempSync(join(tmpdir(), "lighthouse-effect-cli-package-"))
const npmCli = process.env.npm_execpath

/** npx's install folders for tarballs under `work` (npm names them by a hash of the specs). */
const npxEntries = () => {
  const cache = spawnSync(process.execPath, [npmCli, "config", "get", "cache"], { encoding: "utf8" }).stdout.trim()
  const npxCache = join(cache, "_npx")
  if (cache === "" || !existsSync(npxCache)) return []
  return readdirSync(npxCache)
    .map((entry) => join(npxCache, entry))
    .filter((dir) => {
      const manifest = join(dir, "package.json")
      if (!existsSync(manifest)) return false
      const packages = JSON.parse(readFileSync(manifest, "utf8"))._npx?.packages ?? []
      return packages.some((spec) => spec.startsWith(work))
    })
}

const cleanUp = () => {
  for (const dir of npxEntries()) rmSync(dir, { recursive: true, force: true })
  rmSync(work, { recursive: true, force: true })
}

const fail = (step, output) => {
  process.stderr.write(`cli package test: ${step} failed\n${output}\n`)
  cleanUp()
  process.exit(1)
}

if (npmCli === undefined) fail("npm", "run it as npm run test:cli-package")
const node22 = join(root, "tooling", "node22", "node_modules", "node", "bin", "node")
if (!existsSync(node22)) fail("Node of tooling/node22", `${node22} is missing: run npm ci`)

// A user's shell on Node 22.19: nothing of this repository's npm run (npm's variables,
// node_modules/.bin on the PATH, Node 24) is inherited.
const userEnv = {
  ...Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("npm_") && name !== "INIT_CWD")
  ),
  PATH: [
    dirname(node22),
    ...(process.env.PATH ?? "")
      .split(delimiter)
      .filter((dir) => !dir.endsWith(join("node_modules", ".bin")) && !dir.includes("node-gyp-bin"))
  ].join(delimiter)
}

const { library, cli } = await packBoth(work)
const empty = join(work, "empty")
mkdirSync(empty)

/** `npx` of both tarballs in the empty folder (the npm cache first, the registry for what it lacks), on Node 22.19. */
const npx = (step, args) => {
  const result = spawnSync(
    node22,
    [npmCli, "exec", "--yes", "--prefer-offline", "--loglevel=error", "--package", library, "--package", cli, ...args],
    { cwd: empty, env: userEnv, encoding: "utf8", maxBuffer: 16 * 1024 * 1024, timeout: 300_000 }
  )
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}${result.error ?? ""}`
  if (result.status !== 0) fail(step, `exit ${result.status}\n${output}`)
  return result
}

const help = npx("npx … lighthouse-effect --help", ["--", "lighthouse-effect", "--help"])
if (!help.stdout.includes("USAGE") || !help.stdout.includes("upload"))
  fail("lighthouse-effect --help", `no usage with the commands on stdout:\n${help.stdout}${help.stderr}`)
if (readdirSync(empty).length > 0) fail("npx in the empty folder", `it wrote ${readdirSync(empty).join(", ")}`)

npx("the scripted session", ["-c", `node ${JSON.stringify(fileURLToPath(new URL("session.mjs", import.meta.url)))}`])

cleanUp()
console.log(
  "cli package test: npx --package of both tarballs ran lighthouse-effect --help on Node 22.19 in an empty " +
    "folder; a script ran dev, wallet create, api-key, upload, download (verified, bytes equal) by exit codes and --json"
)
