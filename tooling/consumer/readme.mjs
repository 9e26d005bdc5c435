// The documentation's TypeScript examples, as files a consumer project can compile and run: every
// ```ts block of README.md, of the guides in docs/ and of cli/README.md, every program of
// examples/ and the module of its browser page.
//
// A block with an `import` is a whole program: compiled, and run against the simulated network.
// Any other block is a snippet of one capability: compiled inside `Effect.gen`, after a prelude
// that declares the names the guides say it takes from context (`signer`, `apiKey`, `token`, …).
// The README's programs are its tour, written for `npm run serve`: they run against a served
// network with the variables it prints; the others against the network in process.
import { readdirSync, readFileSync } from "node:fs"
import { basename, join } from "node:path"

const prelude = `import { Effect, type Redacted, Stream } from "effect"
import { AccessControl, Auth, Download, Files, Ipns, KeyShards, Payment, Signer, Upload } from "lighthouse-effect"
import type { Address, Hex, LocalAccount } from "viem"

declare const signer: Signer.Service
declare const apiKey: Redacted.Redacted<string>
declare const token: Redacted.Redacted<string>
declare const cid: string
declare const hex: string
declare const privateKey: Hex
declare const friend: Address
declare const friendAddress: Address
declare const newOwner: Address
declare const usdc: Address
declare const account: LocalAccount
declare const readable: ReadableStream<Uint8Array>
declare const size: number

export const snippet = Effect.gen(function* () {
`

/** Every ```ts block of a Markdown text, with the line it starts on. */
export const typescriptBlocks = (markdown) => {
  const blocks = []
  const lines = markdown.split("\n")
  let open = null
  lines.forEach((line, index) => {
    if (open === null && /^```ts\s*$/.test(line)) open = { line: index + 2, body: [] }
    else if (open !== null && /^```\s*$/.test(line)) {
      blocks.push({ line: open.line, code: open.body.join("\n") })
      open = null
    } else if (open !== null) open.body.push(line)
  })
  return blocks
}

/**
 * What a program's comments promise it prints: for each `console.log(…) // "text"` (or
 * `// text, …`), the line it must print, the quoted text or the first word.
 */
export const promisedLines = (code) =>
  code.split("\n").flatMap((line) => {
    const match = /console\.log\(.*\/\/\s*(?:"([^"]*)"|([^\s,;]+))/.exec(line)
    return match === null ? [] : [match[1] ?? match[2]]
  })

/**
 * The examples of one Markdown file (`origin`, relative to `root`): `{ name, source, program,
 * origin, line, promised, served }`; `program` blocks are run, `served` ones beside a served network.
 */
export const markdownExamples = (root, origin) =>
  typescriptBlocks(readFileSync(join(root, origin), "utf8")).map(({ line, code }) => {
    const program = /^import\s/m.test(code)
    const name = `${origin.replace(/\.md$/, "").replace(/[^A-Za-z0-9]+/g, "-")}-line-${line}.ts`
    const source = program
      ? `// ${origin} line ${line}\n${code}\n`
      : `// ${origin} line ${line}\n${prelude}${code.replace(/^/gm, "  ")}\n})\n`
    const served = program && origin === "README.md"
    return { name, source, program, origin, line, promised: program ? promisedLines(code) : [], served }
  })

/** The programs of examples/, each run against the network in process. */
export const programExamples = (root) =>
  readdirSync(join(root, "examples"))
    .filter((file) => file.endsWith(".ts"))
    .sort()
    .map((file) => {
      const code = readFileSync(join(root, "examples", file), "utf8")
      const origin = `examples/${file}`
      const name = `example-${basename(file)}`
      return { name, source: code, program: true, origin, line: 1, promised: promisedLines(code), served: false }
    })

/**
 * The browser page's module (examples/browser/page.ts): typechecked with the programs, not run by
 * Node; the consumer test bundles it and runs the page in Chromium (`browserPage.mjs`).
 */
export const browserPageExample = (root) => ({
  name: "example-browser-page.ts",
  source: readFileSync(join(root, "examples", "browser", "page.ts"), "utf8"),
  program: false,
  origin: "examples/browser/page.ts",
  line: 1,
  promised: [],
  served: false
})

/** The Markdown files whose ```ts blocks are examples: the README, the guides and the CLI's guide. */
export const documentedFiles = (root) => [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((file) => file.endsWith(".md"))
    .sort()
    .map((file) => `docs/${file}`),
  "cli/README.md"
]

/** Every example of the documentation and of examples/. */
export const documentedExamples = (root) => [
  ...documentedFiles(root).flatMap((origin) => markdownExamples(root, origin)),
  ...programExamples(root),
  browserPageExample(root)
]
