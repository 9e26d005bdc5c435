/**
 * What a consumer installs: this package (as `npm pack` makes it) with its peers, against the
 * provider's `@lighthouse-web3/sdk`, each installed by npm into an empty project of its own in the
 * same run. Sizes are the files' bytes under `node_modules`; packages are the folders with a
 * `package.json` there.
 *
 * @since 0.1.0
 */
import "../../tooling/requireNode.mjs"
import { execFileSync } from "node:child_process"
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { writeSection } from "./report.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))
const work = mkdtempSync(join(tmpdir(), "lighthouse-effect-install-"))
const npm = (args: ReadonlyArray<string>, cwd: string) =>
  execFileSync(process.execPath, [process.env.npm_execpath ?? "npm", ...args, "--loglevel=error"], {
    cwd,
    stdio: ["ignore", "pipe", "inherit"]
  })
const versionOf = (name: string): string =>
  JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")).version
const own = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
// The simulated network's peers; hardhat (a local chain, `mocks/chain`) is a tool apart.
const optionalPeers = Object.keys(own.peerDependenciesMeta ?? {}).filter((name) => name !== "hardhat")

interface Footprint {
  readonly bytes: number
  readonly packages: number
}

const footprint = (dir: string): Footprint => {
  let bytes = 0
  let packages = 0
  const walk = (path: string): void => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name)
      if (entry.isSymbolicLink()) continue
      if (entry.isDirectory()) {
        if (existsSync(join(full, "package.json")) && /node_modules(\/@[^/]+)?$/.test(path)) packages++
        walk(full)
      } else bytes += lstatSync(full).size
    }
  }
  walk(dir)
  return { bytes, packages }
}

/** Installs `dependencies` into a new project and measures its node_modules. */
const install = (name: string, dependencies: Record<string, string>): Footprint => {
  const dir = join(work, name)
  mkdirSync(dir)
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, private: true, dependencies }))
  npm(["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"], dir)
  return footprint(join(dir, "node_modules"))
}

npm(["pack", "--pack-destination", work], root)
const tarball = readdirSync(work).find((file) => file.endsWith(".tgz"))!
const self = { "lighthouse-effect": `file:../${tarball}` }
const effectAndViem = { effect: versionOf("effect"), viem: versionOf("viem") }
const installs = {
  base: install("effect-and-viem", effectAndViem),
  client: install("client", { ...self, ...effectAndViem }),
  nodeClient: install("node-client", {
    ...self,
    ...effectAndViem,
    "@effect/platform-node": versionOf("@effect/platform-node")
  }),
  withMocks: install("with-mocks", {
    ...self,
    ...effectAndViem,
    ...Object.fromEntries(optionalPeers.map((name) => [name, versionOf(name)]))
  }),
  sdk: install("provider-sdk", { "@lighthouse-web3/sdk": versionOf("@lighthouse-web3/sdk") })
}
rmSync(work, { recursive: true, force: true })

const mb = (bytes: number) => (bytes / 1e6).toFixed(1)
const row = (what: string, { bytes, packages }: Footprint, beyond?: Footprint) =>
  `| ${what} | ${mb(bytes)} MB | ${packages} | ${beyond ? `${mb(bytes - beyond.bytes)} MB, ${packages - beyond.packages} packages` : "—"} |`
const beyondBase = installs.client.bytes - installs.base.bytes
const target = installs.sdk.bytes / 2
const section = [
  "## Install size",
  "",
  "`scripts/bench/installSize.ts`: each set installed by npm into an empty project, in one run.",
  "",
  "| what a consumer installs | size | packages | beyond effect + viem |",
  "|---|---|---|---|",
  row("effect + viem alone", installs.base),
  row("lighthouse-effect, client only (browser, or Node with `fetch`)", installs.client, installs.base),
  row("… plus `@effect/platform-node` for `lighthouse-effect/node`", installs.nodeClient, installs.base),
  row(`… plus the simulated network's optional peers (${optionalPeers.join(", ")})`, installs.withMocks, installs.base),
  row("the provider's `@lighthouse-web3/sdk`", installs.sdk),
  "",
  `Target: a client-only consumer installs at most half the provider SDK's size beyond effect + viem: ${mb(beyondBase)} MB against ${mb(target)} MB — ${beyondBase <= target ? "met" : "not met"}.`,
  "`@effect/platform-node` brings `undici` and, as a peer, `redis`: it is an optional peer, needed only by the Node layer.",
  "`@noble/curves` is pinned at the version viem pins (1.9.1), so a consumer installs one copy of it and of",
  "`@noble/hashes`, not a second one under viem, ox and `@scure/bip32`."
].join("\n")
writeSection(section)
console.log(section)
