/**
 * `npm run bench`: every benchmark, each in a process of its own (so one's heap and
 * JIT state do not colour the next), writing its section of BENCHMARKS.md; then the
 * machine and date at the top.
 *
 * Sizes can be reduced for a quick look with the variables each benchmark reads
 * (e.g. `BENCH_PLAIN_MIB=64 BENCH_ENCRYPTED_MIB=32 BENCH_WIRE_MIB=128 BENCH_WIRE_RUNS=3
 * BENCH_SOURCES_MIB=64 BENCH_SYNC_MIB=128 npm run bench`).
 *
 * @since 0.1.0
 */
import "../../tooling/requireNode.mjs"
import { execFileSync } from "node:child_process"
import { cpus, totalmem } from "node:os"
import { fileURLToPath } from "node:url"
import { writePreamble } from "./report.ts"

const benches = [
  "crypto.ts",
  "webCipher.ts",
  "nodes.ts",
  "transfer.ts",
  "verify.ts",
  "leafWorker.ts",
  "wire.ts",
  "network.ts",
  "sources.ts",
  "sync.ts",
  "folders.ts",
  "bundle.ts",
  "installSize.ts",
  "cliStart.ts",
  "controlPlane.ts"
]

for (const bench of benches) {
  console.log(`\n=== ${bench} ===`)
  execFileSync(
    process.execPath,
    ["--conditions=@lighthouse-effect/source", "--import", "tsx", fileURLToPath(new URL(bench, import.meta.url))],
    {
      stdio: "inherit"
    }
  )
}

const cpu = cpus()[0]?.model ?? "unknown CPU"
writePreamble(
  [
    `Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: Node ${process.version}, ${cpu}`,
    `(${cpus().length} threads), ${Math.round(totalmem() / 2 ** 30)} GiB. Every figure is a ratio against the`,
    "provider's own package (or raw `node:crypto`) measured in the same run on the same machine."
  ].join("\n")
)
console.log("\nBENCHMARKS.md updated.")
