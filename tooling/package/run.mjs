// The package check (`npm run test:package`, part of `npm test`): the tarball `npm publish` would
// upload (`npm pack`; `prepack` builds `dist/`), linted by publint (every `exports`/`imports`
// target present and well formed, warnings counted as errors) and by Are the Types Wrong (each
// entry point's types resolve as its JavaScript does, under the ESM-only profile: Node 16+ ESM
// and bundlers; CommonJS `require` is not offered).
// Quiet when it passes; on a failure it prints the failing tool's whole output.
import "../requireNode.mjs"
import { spawnSync } from "node:child_process"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../..", import.meta.url))
const work = mkdtempSync(join(tmpdir(), "lighthouse-effect-package-"))

/** Runs a Node program (an npm binary's script) to its end; its output, or exit 1 with it. */
const run = (step, args, cwd = root) => {
  const result = spawnSync(process.execPath, args, { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}${result.error ? String(result.error) : ""}`
  if (result.status !== 0) {
    process.stderr.write(`package check: ${step} failed (tarball kept in ${work})\n${output}\n`)
    process.exit(1)
  }
  return output
}

try {
  run("npm pack", [process.env.npm_execpath ?? "npm", "pack", "--pack-destination", work, "--loglevel=error"])
  const tarball = readdirSync(work).find((name) => name.endsWith(".tgz"))
  if (tarball === undefined) throw new Error(`npm pack left no .tgz in ${work}`)
  const path = join(work, tarball)
  run("publint", [join(root, "node_modules/publint/src/cli.js"), "run", "--strict", path])
  run("attw", [join(root, "node_modules/@arethetypeswrong/cli/dist/index.js"), "--profile", "esm-only", path])
  rmSync(work, { recursive: true, force: true })
  console.log(`package check: ${tarball} passes publint (strict) and attw (ESM-only profile)`)
} catch (error) {
  process.stderr.write(`package check: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
}
