// The README's install and tour, as a newcomer runs them (`npm run test:tour`, part of `npm test`).
// In a new folder of the temp directory, on Node 22.19 from npm (`tooling/node22`), with nothing of
// this repository's npm run inherited: a copy of the checkout's tracked files stands for the clone
// (its node_modules linked for `npm ci`), then the install block's lines from `npm run pack:cli` on,
// `..` being that folder; then `npm run serve` from the
// checkout on free ports without the chain, and the tour in `my-app` with the four `LIGHTHOUSE_*`
// variables read from the banner's text: the Effect program and the Promise program (each
// `console.log(…) // "text"` must print that text) and the shell block, line by line, each command's
// `# text` comment checked where it names a CID or a line of output.
// Quiet when it passes (one summary line); on a failure it prints the failing step's output.
import "../requireNode.mjs"
import { spawn, spawnSync } from "node:child_process"
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisedLines, typescriptBlocks } from "../consumer/readme.mjs"

const root = fileURLToPath(new URL("../..", import.meta.url))
const work = mkdtempSync(join(tmpdir(), "lighthouse-effect-tour-"))
const npmCli = process.env.npm_execpath
const stops = []

const fail = (step, output) => {
  process.stderr.write(`tour test: ${step} failed (kept in ${work})\n${output}\n`)
  for (const stop of stops) stop()
  process.exit(1)
}
if (npmCli === undefined) fail("npm", "run it as npm run test:tour")
const node22 = join(root, "tooling", "node22", "node_modules", "node", "bin", "node")
if (!existsSync(node22)) fail("Node of tooling/node22", `${node22} is missing: run npm ci`)

// A user's shell on Node 22.19, `npm` and `npx` npm's own; its own config and state folders.
const bin = join(work, "bin")
mkdirSync(bin)
for (const [name, cli] of [
  ["npm", npmCli],
  ["npx", join(dirname(npmCli), "npx-cli.js")]
])
  writeFileSync(join(bin, name), `#!/bin/sh\nexec "${node22}" "${cli}" "$@"\n`, { mode: 0o755 })
const userEnv = {
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith("npm_") && !name.startsWith("LIGHTHOUSE_") && name !== "INIT_CWD"
    )
  ),
  PATH: [
    bin,
    dirname(node22),
    ...(process.env.PATH ?? "")
      .split(delimiter)
      .filter((dir) => !dir.endsWith(join("node_modules", ".bin")) && !dir.includes("node-gyp-bin"))
  ].join(delimiter),
  XDG_CONFIG_HOME: join(work, "config"),
  XDG_STATE_HOME: join(work, "state"),
  npm_config_prefer_offline: "true",
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_loglevel: "error"
}

/** Runs one line of the README in `bash`, in `cwd`; returns its output, or stops the test with it. */
const shell = (line, cwd, env = {}) => {
  const result = spawnSync("bash", ["-c", line], {
    cwd,
    env: { ...userEnv, ...env },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    timeout: 600_000
  })
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}${result.error ?? ""}`
  if (result.status !== 0) fail(`\`${line}\` in ${cwd}`, `exit ${result.status}\n${output}`)
  return result.stdout
}

const readme = readFileSync(join(root, "README.md"), "utf8")
const blocks = (language) =>
  [...readme.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map((match) => match[1])
const commands = (block) =>
  block
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
const section = (heading) => readme.slice(readme.indexOf(`\n## ${heading}\n`))

// 1. Install: the block's lines from the packing on, the checkout standing for the clone.
const install = commands(
  blocks("sh").find((block) => block.includes("npm run pack:cli")) ?? fail("README", "no install block")
)
const fromPacking = install.slice(install.findIndex((line) => line.includes("npm run pack:cli")))
// The clone: the checkout's tracked files as they are now; `npm ci`: its installed node_modules, linked.
const checkout = join(work, "lighthouse-effect")
mkdirSync(checkout)
shell(`git ls-files -z | tar --null --ignore-failed-read -T - -cf - | tar -xf - -C ${JSON.stringify(checkout)}`, root)
for (const modules of ["node_modules", "tooling/node20/node_modules", "tooling/node22/node_modules"])
  symlinkSync(realpathSync(join(root, modules)), join(checkout, modules))
let cwd = checkout
for (const line of fromPacking) {
  const command = line.replace(/\s+#.*$/, "")
  shell(command, cwd)
  // `cd` changes the folder of the following lines, as in a terminal.
  for (const [, dir] of command.matchAll(/(?:^|&&)\s*cd\s+(\S+)/g)) cwd = join(cwd, dir)
}
const myApp = join(work, "my-app")
if (!existsSync(join(myApp, "node_modules", ".bin", "lighthouse-effect"))) fail("install", "no lighthouse-effect bin")

// 2. `npm run serve`, on free ports and without the chain; the variables from its banner's text.
const serve = spawn(process.execPath, [npmCli, "run", "-s", "serve", "--", "--free-ports", "--no-chain"], {
  cwd: root,
  env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("LIGHTHOUSE_"))),
  stdio: ["ignore", "pipe", "pipe"],
  // Its own process group: npm runs serve as a child of its own, and both are stopped together.
  detached: true
})
const stopServe = () => {
  try {
    process.kill(-serve.pid, "SIGTERM")
  } catch {
    // already gone
  }
}
stops.push(stopServe)
let banner = ""
let errors = ""
serve.stderr.on("data", (chunk) => {
  errors += chunk
})
await new Promise((resolve) => {
  const silent = setTimeout(() => fail("npm run serve", `no banner in 180 s\n${banner}${errors}`), 180_000)
  serve.stdout.on("data", (chunk) => {
    banner += chunk
    if (banner.includes("Ctrl-C to stop.")) {
      clearTimeout(silent)
      resolve()
    }
  })
  serve.once("close", (code) => {
    if (!banner.includes("Ctrl-C to stop.")) fail("npm run serve", `exited (${code}) before its banner\n${errors}`)
  })
})
const variables = Object.fromEntries(
  [...banner.matchAll(/\b(LIGHTHOUSE_[A-Z_]+)=(\S+)/g)].map(([, name, value]) => [name, value])
)
if (Object.keys(variables).length !== 4) fail("serve's banner", `not the four variables:\n${banner}`)

// 3. The tour's programs, in my-app, as `node tour.ts` and `node tour-promise.ts`.
const tour = section("A 5-minute tour")
const programs = typescriptBlocks(tour.slice(0, tour.indexOf("\n## ", 1)))
if (programs.length !== 2) fail("README", `the tour has ${programs.length} TypeScript programs, not 2`)
let promised = 0
for (const [file, { code }] of [
  ["tour.ts", programs[0]],
  ["tour-promise.ts", programs[1]]
]) {
  writeFileSync(join(myApp, file), code)
  const printed = shell(`node ${file}`, myApp, variables).split("\n")
  for (const line of promisedLines(code))
    if (!printed.includes(line)) fail(`node ${file}`, `promises "${line}"; printed:\n${printed.join("\n")}`)
  promised += promisedLines(code).length
}

// 4. The shell block of the tour, line by line in one environment (its `export`s carried on); a
// `# bafy…` comment names what the line must print.
const cliBlock =
  blocks("sh").find((block) => block.includes("npx lighthouse-effect upload")) ?? fail("README", "no CLI tour")
const exported = { ...variables }
let ran = 0
for (const line of commands(cliBlock)) {
  const [command, comment = ""] = line.split(/\s+#\s+/)
  const assignment = /^export\s+(\w+)=(?:'([^']*)'|(\S+))$/.exec(command)
  if (assignment !== null) {
    exported[assignment[1]] = assignment[2] ?? assignment[3]
    continue
  }
  const output = shell(command, myApp, exported)
  const cid = /^(baf[a-z0-9]+)/.exec(comment)?.[1]
  if (cid !== undefined && !output.includes(cid)) fail(`\`${command}\``, `does not print ${cid}:\n${output}`)
  ran += 1
}

stopServe()
rmSync(work, { recursive: true, force: true })
console.log(
  `tour test: the README's install (${fromPacking.length} lines) and tour on Node 22.19 beside npm run serve: ` +
    `2 programs (the ${promised} lines they promise printed) and ${ran} command lines`
)
