/**
 * What a command loads at start, in the bundle that ships (`tooling/cli/pack.mjs`'s `bundle`):
 * `upload` and `download` reach no viem and no `Payment` (their services are the Node layer
 * without it; a signer and the keystore load viem only when they build an account), `--help` no
 * library service; the payment commands still reach both. And no chunk imports a Node built-in as
 * an ES module (`import "node:http"` loads undici on every start). Read from esbuild's metafile:
 * the chunks a command's chunk imports statically are the files Node loads with it.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

interface Output {
  readonly entryPoint?: string
  readonly imports: ReadonlyArray<{ readonly path: string; readonly kind: string; readonly external?: boolean }>
  readonly inputs: Readonly<Record<string, unknown>>
}
interface Built {
  readonly metafile: { readonly outputs: Readonly<Record<string, Output>> }
}

// A path, not a literal: the packer is a plain ES module of the tooling, outside the typed sources.
const packer = join(import.meta.dirname, "..", "..", "tooling", "cli", "pack.mjs")

let dist = ""
let outputs: Readonly<Record<string, Output>> = {}

beforeAll(async () => {
  dist = await mkdtemp(join(tmpdir(), "lighthouse-effect-startup-"))
  const { bundle } = (await import(packer)) as { readonly bundle: (dist: string) => Promise<Built> }
  outputs = (await bundle(join(dist, "dist"))).metafile.outputs
}, 120_000)

afterAll(() => rm(dist, { recursive: true, force: true }))

/** The output chunk whose entry is `source` (a dynamic import's module, or the bin). */
const chunkOf = (source: string): string => {
  const found = Object.entries(outputs).find(([, output]) => output.entryPoint === source)
  if (found === undefined) throw new Error(`no chunk has the entry ${source}`)
  return found[0]
}

/** Every source file Node loads with `chunks`: theirs and those of the chunks they import statically. */
const loadedWith = (chunks: ReadonlyArray<string>): ReadonlyArray<string> => {
  const seen = new Set<string>()
  const visit = (chunk: string) => {
    if (seen.has(chunk)) return
    seen.add(chunk)
    for (const imported of outputs[chunk]?.imports ?? [])
      if (imported.kind === "import-statement" && imported.external !== true) visit(imported.path)
  }
  for (const chunk of chunks) visit(chunk)
  return [...seen].flatMap((chunk) => Object.keys(outputs[chunk]?.inputs ?? {}))
}

/** What a command loads: the bin, the program, the root's services and the command's module. */
const command = (module: string) =>
  loadedWith([
    chunkOf("cli/src/bin.ts"),
    chunkOf("cli/src/Program.ts"),
    chunkOf("cli/src/Client.ts"),
    chunkOf(`cli/src/commands/${module}.ts`)
  ])

const viem = (inputs: ReadonlyArray<string>) => inputs.filter((input) => input.includes("node_modules/viem/"))
const payment = (inputs: ReadonlyArray<string>) => inputs.filter((input) => input === "core/src/Payment.ts")

describe("what a command of the packed command line loads", () => {
  it.each(["Upload", "Download", "Files"])("%s: no viem, no Payment", (module) => {
    const inputs = command(module)
    expect(inputs).toContain("core/src/Upload.ts")
    expect(viem(inputs)).toEqual([])
    expect(payment(inputs)).toEqual([])
  })

  it("the payment commands: viem and Payment", () => {
    const inputs = command("Payment")
    expect(viem(inputs).length).toBeGreaterThan(0)
    expect(payment(inputs)).toEqual(["core/src/Payment.ts"])
  })

  it("--help: no service of the library", () => {
    const inputs = loadedWith([chunkOf("cli/src/bin.ts"), chunkOf("cli/src/Program.ts")])
    expect(inputs.filter((input) => input.startsWith("core/src/"))).toEqual([])
  })

  it("no chunk imports a Node built-in as an ES module", () => {
    const builtins = Object.values(outputs).flatMap((output) =>
      output.imports.filter((imported) => imported.external === true && imported.kind === "import-statement")
    )
    expect(builtins.map((imported) => imported.path).filter((path) => !path.startsWith("hardhat"))).toEqual([])
  })
})
