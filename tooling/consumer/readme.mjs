// The README's TypeScript examples, as files a consumer project can compile and run.
//
// A block with an `import` is a whole program: compiled, and run against the simulated network.
// Any other block is a snippet of one capability: compiled inside `Effect.gen`, after a prelude
// that declares the names the README says it takes from context (`signer`, `apiKey`, `token`, …).
import { readFileSync } from "node:fs"

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

/** The example files for a README: `{ name, source, program, promised }`; `program` blocks are run. */
export const readmeExamples = (readmePath) =>
  typescriptBlocks(readFileSync(readmePath, "utf8")).map(({ line, code }) => {
    const program = /^import\s/m.test(code)
    const name = `readme-line-${line}.ts`
    const source = program
      ? `// README.md line ${line}\n${code}\n`
      : `// README.md line ${line}\n${prelude}${code.replace(/^/gm, "  ")}\n})\n`
    return { name, source, program, line, promised: program ? promisedLines(code) : [] }
  })
