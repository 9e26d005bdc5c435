// The consumer test (`npm run test:consumer`, part of `npm test`): what a user of the published
// package gets, on the oldest Node each entry point supports (docs/runtimes.md, "Entry points,
// their peers and their Node").
// It packs this project (`prepack` builds `dist/`), and in a new project in the temp folder, as a
// user on Node 20.19 would, runs plain `npm install` (install scripts on) of the tarball and its
// peers at the versions this project uses (from npm's cache when there). It checks that every
// `exports` target and its types are in the package and that no script of the installed manifest
// names a file the package lacks, typechecks every ```ts block of README.md, docs/*.md and
// cli/README.md and every program of examples/ strictly against the installed package (`readme.mjs`),
// bundles examples/browser's page and runs it in Chromium beside a served network (`browserPage.mjs`),
// runs the whole programs on Node 22.19 (the oldest that their `lighthouse-effect/node` supports)
// against the simulated network of `lighthouse-effect/mocks/node` (the README's tour against a
// served one, with the `LIGHTHOUSE_*` variables `npm run serve` prints), and runs a program through
// every entry point on Node 20.19 (`entryPoints.mjs`).
// The two Nodes come from npm, pinned by `tooling/node20` and `tooling/node22` (devDependencies).
// Quiet when it passes; on a failure it prints the failing step's whole output.
import "../requireNode.mjs"
import { spawn, spawnSync } from "node:child_process"
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, dirname, join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { bundlePage, runPage } from "./browserPage.mjs"
import { documentedExamples } from "./readme.mjs"

const root = fileURLToPath(new URL("../..", import.meta.url))
const own = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
const work = mkdtempSync(join(tmpdir(), "lighthouse-effect-consumer-"))
const keep = process.env.KEEP_CONSUMER === "1"

// Run as it exits, failures included: the served network started for the entry-point program.
const onExit = []
const fail = (step, output) => {
  process.stderr.write(`consumer test: ${step} failed (project kept in ${work})\n${output}\n`)
  for (const stop of onExit) stop()
  process.exit(1)
}

/** A pinned Node from npm (`tooling/node20`, `tooling/node22`), installed by `npm ci`. */
const pinnedNode = (pin) => {
  const binary = join(root, "tooling", pin, "node_modules", "node", "bin", "node")
  if (!existsSync(binary)) fail(`Node of tooling/${pin}`, `${binary} is missing: run npm ci`)
  return binary
}
const oldestNode = pinnedNode("node20")
const readmeNode = pinnedNode("node22")

// A user's shell: `node` is the given Node, and nothing of this repository's npm run is inherited
// (npm's variables, node_modules/.bin on the PATH, Node 24).
const npmCli = process.env.npm_execpath ?? fail("npm", "run it as npm run test:consumer")
const userEnv = (nodeBinary, extra = {}) => ({
  ...Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("npm_") && name !== "INIT_CWD")
  ),
  PATH: [
    dirname(nodeBinary),
    ...(process.env.PATH ?? "")
      .split(delimiter)
      .filter((dir) => !dir.endsWith(join("node_modules", ".bin")) && !dir.includes("node-gyp-bin"))
  ].join(delimiter),
  ...extra
})

/** Runs a command; returns its output, or stops the test with it. */
const run = (step, command, args, options = {}) => {
  const result = spawnSync(command, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, ...options })
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}${result.error ? String(result.error) : ""}`
  if (result.status !== 0) fail(step, output)
  return output
}

/**
 * `servedNetwork.mjs` on Node 22.19 in the consumer project: resolves with the line of addresses
 * it prints once listening, and `stop` (closing its standard input ends it).
 */
const serveNetwork = () =>
  new Promise((resolve) => {
    const step = `servedNetwork.mjs on Node ${readmeNode}`
    const server = spawn(readmeNode, ["servedNetwork.mjs"], { cwd: consumer, env: userEnv(readmeNode) })
    onExit.push(() => server.kill())
    let errors = ""
    server.stderr.on("data", (chunk) => {
      errors += chunk
    })
    let listening = false
    const exited = new Promise((done) =>
      server.on("close", (code) => {
        if (!listening) fail(step, `exited (${code}) before serving\n${errors}`)
        done(code)
      })
    )
    const silent = setTimeout(() => fail(step, `printed no addresses in 120 s\n${errors}`), 120_000)
    createInterface({ input: server.stdout }).once("line", (line) => {
      listening = true
      clearTimeout(silent)
      resolve({
        line,
        stop: () => {
          server.stdin.end()
          const stuck = setTimeout(() => server.kill(), 10_000)
          return exited.then(() => clearTimeout(stuck))
        }
      })
    })
  })

const npm = (step, args, cwd) => run(step, process.execPath, [npmCli, ...args, "--loglevel=error"], { cwd })

const installedVersion = (name) =>
  JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")).version

// 1. The tarball, as `npm publish` would make it.
npm("npm pack", ["pack", "--pack-destination", work], root)
const tarball = readdirSync(work).find((name) => name.endsWith(".tgz"))
if (tarball === undefined) fail("npm pack", `no .tgz in ${work}`)

// 2. A consumer project: the package and every peer it declares (the optional ones too: the
// README's programs use the simulated network), plus what a TypeScript user has.
const consumer = join(work, "consumer")
mkdirSync(consumer)
const peers = Object.fromEntries(Object.keys(own.peerDependencies).map((name) => [name, installedVersion(name)]))
writeFileSync(
  join(consumer, "package.json"),
  JSON.stringify({
    name: "lighthouse-effect-consumer",
    private: true,
    type: "module",
    dependencies: {
      "lighthouse-effect": `file:../${tarball}`,
      ...peers,
      "@types/node": installedVersion("@types/node")
    }
  })
)
// The README's command, install scripts on, by npm on the oldest Node.
run(
  `npm install on Node ${oldestNode}`,
  oldestNode,
  [npmCli, "install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"],
  { cwd: consumer, env: userEnv(oldestNode) }
)

// 3. Every `exports` target and its declarations are in the installed package.
const installed = join(consumer, "node_modules", "lighthouse-effect")
const missing = Object.entries(JSON.parse(readFileSync(join(installed, "package.json"), "utf8")).exports).flatMap(
  ([entry, targets]) =>
    [targets.types, targets.default]
      .filter((file) => !existsSync(join(installed, file)))
      .map((file) => `${entry}: ${file}`)
)
if (missing.length > 0) fail("package contents", `missing from the tarball:\n${missing.join("\n")}`)

// 3b. No script of the installed manifest names a file the package lacks: npm runs a package's
// install scripts in its users' projects (a packed `postinstall` of a repository file made every
// `npm install lighthouse-effect` fail). A file is an argument with a `/` or a script's extension.
const scripts = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")).scripts ?? {}
const absent = Object.entries(scripts).flatMap(([name, command]) =>
  command
    .split(/[\s;&|()"']+/)
    .filter((word) => word !== "" && !word.startsWith("-") && !word.includes("://"))
    .filter((word) => word.includes("/") || /\.[cm]?[jt]sx?$|\.json$/.test(word))
    .filter((file) => !existsSync(join(installed, file)))
    .map((file) => `scripts.${name} (${command}) names ${file}`)
)
if (absent.length > 0)
  fail("package scripts", `the installed package.json names files the package lacks:\n${absent.join("\n")}`)

// 4. The documentation's examples, typechecked strictly as a consumer's code.
const examples = documentedExamples(root)
for (const { name, source } of examples) writeFileSync(join(consumer, name), source)
writeFileSync(
  join(consumer, "tsconfig.json"),
  JSON.stringify({
    compilerOptions: {
      target: "ES2023",
      lib: ["ES2023", "DOM", "DOM.Iterable"],
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      verbatimModuleSyntax: true,
      allowImportingTsExtensions: true,
      noEmit: true,
      skipLibCheck: true,
      types: ["node"]
    },
    include: ["*.ts"]
  })
)
run("typecheck of the documentation's examples", process.execPath, [
  join(root, "node_modules/typescript/bin/tsc"),
  "-p",
  consumer
])

// 5. The whole programs, run on Node 22.19 against the simulated network: in process, on the
// production host names (the public gateways' too, for `sources: ["public"]`), or, for the README's
// tour, served (`servedNetwork.mjs`, Node 22.19) and reached through the variables `serve` prints.
// A program that starts the network itself runs without the preload.
writeFileSync(
  join(consumer, "simulated-network.mjs"),
  'import { Download } from "lighthouse-effect"\nimport { startMockNetwork } from "lighthouse-effect/mocks/node"\n' +
    'startMockNetwork({ gateways: Download.publicGateways, onUnhandledFrame: "error" })\n'
)
for (const program of ["entryPoints.mjs", "servedNetwork.mjs"])
  copyFileSync(fileURLToPath(new URL(program, import.meta.url)), join(consumer, program))
const served = await serveNetwork()
const { urls } = JSON.parse(served.line)
const servedEnv = {
  LIGHTHOUSE_API_URL: urls.api,
  LIGHTHOUSE_NODE_URL: urls.node,
  LIGHTHOUSE_GATEWAY_URL: urls.gateway,
  LIGHTHOUSE_ENCRYPTION_URL: urls.encryption
}
writeFileSync(join(consumer, "report.pdf"), "%PDF-1.7\nA report for the README's upload example.\n")
// Hardhat's well-known second test account: a key with nothing behind it.
const privateKey = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
let promises = 0
for (const { name, source, promised, line, origin, served: beside } of examples.filter((example) => example.program)) {
  const inProcess = beside || source.includes("lighthouse-effect/mocks/node")
  const preload = inProcess ? [] : ["--import", "./simulated-network.mjs"]
  const step = `program ${name} (${origin} line ${line})`
  const output = run(step, readmeNode, ["--disable-warning=ExperimentalWarning", ...preload, name], {
    cwd: consumer,
    env: userEnv(readmeNode, { PRIVATE_KEY: privateKey, ...(beside ? servedEnv : {}) }),
    timeout: 120_000
  })
  // Each `console.log(…) // "text"` of the program must print that line.
  const printed = output.split("\n").map((text) => text.trim())
  const broken = promised.find((text) => !printed.includes(text))
  if (broken !== undefined)
    fail(step, `${origin} (block at line ${line}) promises it prints "${broken}"; it printed:\n${output}`)
  promises += promised.length
}

// 5b. The browser page of examples/browser: its module bundled for the browser from the installed
// package (a `node:` import fails the bundle), the page opened in headless Chromium beside the
// served network, a file picked and uploaded, read back verified (`browserPage.mjs`).
const pageDir = join(work, "browser-page")
mkdirSync(pageDir)
const pageScript = await bundlePage(join(consumer, "example-browser-page.ts"), pageDir).catch((error) =>
  fail("bundle of examples/browser/page.ts", String(error))
)
const pageFile = { name: "hello.txt", text: "hello from a page\n" }
const pageAnswer = await runPage({
  html: join(root, "examples", "browser", "index.html"),
  script: pageScript,
  urls,
  file: pageFile,
  cacheDir: join(root, "node_modules", ".cache", "chromium")
}).catch((error) => fail("examples/browser in Chromium", String(error)))
if (!/^hello\.txt baf[a-z0-9]+ read back verified$/.test(pageAnswer))
  fail("examples/browser in Chromium", `the page answered:\n${pageAnswer}`)

// 6. Every entry point on Node 20.19 (`entryPoints.mjs`), against the network served from Node 22.19
// (`servedNetwork.mjs`: `/mocks/server` needs Node ≥ 22.12).
run(`entryPoints.mjs on Node ${oldestNode}`, oldestNode, ["entryPoints.mjs"], {
  cwd: consumer,
  env: userEnv(oldestNode, { PRIVATE_KEY: privateKey, SERVED_NETWORK: served.line }),
  timeout: 120_000
})
await served.stop()

if (!keep) rmSync(work, { recursive: true, force: true })
const count = (origins) => examples.filter((e) => origins(e.origin)).length
console.log(
  `consumer test: ${tarball} installed by npm on Node 20.19; ${examples.length} examples typechecked ` +
    `(README ${count((o) => o === "README.md")}, docs/ ${count((o) => o.startsWith("docs/"))}, ` +
    `cli/README.md ${count((o) => o === "cli/README.md")}, examples/ ${count((o) => o.startsWith("examples/"))}), ` +
    `${examples.filter((e) => e.program).length} programs run on Node 22.19 (the README's beside a served network), ` +
    "the browser page run in Chromium, " +
    `the ${promises} lines they promise printed; every entry point loaded and used on Node 20.19`
)
