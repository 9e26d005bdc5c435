// The consumer test (`npm run test:consumer`, part of `npm test`): what a user of the published
// package gets. It packs this project (`prepack` builds `dist/`), installs the tarball into a new
// project in the temp folder (its peers at the versions this project uses, from npm's cache when
// there), checks that every `exports` target and its types are in the package, typechecks every
// ```ts block of README.md strictly against the installed package, and runs the blocks that are
// whole programs against the simulated network of `lighthouse-effect/mocks/node`.
// Quiet when it passes; on a failure it prints the failing step's whole output.
import "../requireNode.mjs"
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { readmeExamples } from "./readme.mjs"

const root = fileURLToPath(new URL("../..", import.meta.url))
const own = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
const work = mkdtempSync(join(tmpdir(), "lighthouse-effect-consumer-"))
const keep = process.env.KEEP_CONSUMER === "1"

const fail = (step, output) => {
  process.stderr.write(`consumer test: ${step} failed (project kept in ${work})\n${output}\n`)
  process.exit(1)
}

/** Runs a command; returns its output, or stops the test with it. */
const run = (step, command, args, options = {}) => {
  const result = spawnSync(command, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, ...options })
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}${result.error ? String(result.error) : ""}`
  if (result.status !== 0) fail(step, output)
  return output
}

const npm = (step, args, cwd) =>
  run(step, process.execPath, [process.env.npm_execpath ?? "npm", ...args, "--loglevel=error"], { cwd })

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
npm("npm install", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"], consumer)

// 3. Every `exports` target and its declarations are in the installed package.
const installed = join(consumer, "node_modules", "lighthouse-effect")
const missing = Object.entries(JSON.parse(readFileSync(join(installed, "package.json"), "utf8")).exports).flatMap(
  ([entry, targets]) =>
    [targets.types, targets.default]
      .filter((file) => !existsSync(join(installed, file)))
      .map((file) => `${entry}: ${file}`)
)
if (missing.length > 0) fail("package contents", `missing from the tarball:\n${missing.join("\n")}`)

// 4. The README's examples, typechecked strictly as a consumer's code.
const examples = readmeExamples(join(root, "README.md"))
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
run("typecheck of the README's examples", process.execPath, [
  join(root, "node_modules/typescript/bin/tsc"),
  "-p",
  consumer
])

// 5. The whole programs, run against the simulated network (in process, on the production host
// names). A program that starts the network itself runs without the preload.
writeFileSync(
  join(consumer, "simulated-network.mjs"),
  'import { startMockNetwork } from "lighthouse-effect/mocks/node"\nstartMockNetwork({ onUnhandledFrame: "error" })\n'
)
writeFileSync(join(consumer, "report.pdf"), "%PDF-1.7\nA report for the README's upload example.\n")
// Hardhat's well-known second test account: a key with nothing behind it.
const privateKey = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
let promises = 0
for (const { name, source, promised, line } of examples.filter((example) => example.program)) {
  const preload = source.includes("lighthouse-effect/mocks/node") ? [] : ["--import", "./simulated-network.mjs"]
  const step = `README program ${name}`
  const output = run(step, process.execPath, ["--disable-warning=ExperimentalWarning", ...preload, name], {
    cwd: consumer,
    env: { ...process.env, PRIVATE_KEY: privateKey },
    timeout: 120_000
  })
  // Each `console.log(…) // "text"` of the program must print that line.
  const printed = output.split("\n").map((text) => text.trim())
  const broken = promised.find((text) => !printed.includes(text))
  if (broken !== undefined)
    fail(step, `README.md (block at line ${line}) promises it prints "${broken}"; it printed:\n${output}`)
  promises += promised.length
}

if (!keep) rmSync(work, { recursive: true, force: true })
console.log(
  `consumer test: ${tarball} installed; ${examples.length} README examples typechecked, ` +
    `${examples.filter((e) => e.program).length} run, the ${promises} lines they promise printed`
)
