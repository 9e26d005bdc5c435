/**
 * `tsx storybook/chain/withLocalChain.ts <command…>`: runs a command (Storybook) with the local
 * chain up on 127.0.0.1:8545, and stops the chain when the command ends.
 */
import "../../tooling/requireNode.mjs"
import { spawn } from "node:child_process"
import { ensureLocalChain, rpcUrl } from "./localChain.ts"

const [command, ...args] = process.argv.slice(2)
if (command === undefined) {
  console.error("usage: withLocalChain.ts <command> [args…]")
  process.exit(2)
}

const chain = await ensureLocalChain()
console.log(chain.started ? `local chain started on ${rpcUrl}` : `using the local chain already on ${rpcUrl}`)
const child = spawn(command, args, { stdio: "inherit" })
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal))
child.on("exit", async (code, signal) => {
  await chain.stop()
  process.exit(code ?? (signal === null ? 0 : 1))
})
