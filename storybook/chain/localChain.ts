/**
 * The local chain the stories pay on and evaluate EVM conditions against: Hardhat's simulated
 * network served over HTTP on 127.0.0.1:8545 (chain 31337), as `npx hardhat node` would. An
 * already running one (a Storybook next to the tests, `npx hardhat node`) is reused.
 */
import { startLocalChain } from "lighthouse-effect/mocks/chain"

export const port = 8545
export const rpcUrl = `http://127.0.0.1:${port}`

/** Whether a chain with Hardhat's id (31337) answers on the port. */
export const chainAnswers = async (): Promise<boolean> => {
  try {
    const response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      signal: AbortSignal.timeout(2000)
    })
    const answer = (await response.json()) as { result?: unknown }
    return answer.result === "0x7a69"
  } catch {
    return false
  }
}

/**
 * How long a stop waits for the chain's server to close. The server waits for every connection to
 * end first, and a browser may hold one open that never sends a request (a preconnect): without a
 * bound, the stop, and whatever awaits it (Vitest's teardown, which has no time limit), would wait
 * for good. Past the bound the process's exit ends what is left of the server.
 */
const STOP_WITHIN_MS = 5000

/** `stop`, given up on after {@link STOP_WITHIN_MS} (with a warning). */
const bounded = (stop: () => Promise<void>) => async (): Promise<void> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), STOP_WITHIN_MS)
  })
  const stopped = await Promise.race([stop().then(() => "stopped" as const), late])
  clearTimeout(timer)
  if (stopped === "late") {
    console.warn(`The local chain did not stop within ${STOP_WITHIN_MS / 1000} s; the process's exit ends it.`)
  }
}

/**
 * Starts the chain unless one answers already; the stop function stops only a chain started here,
 * waiting at most {@link STOP_WITHIN_MS} for it.
 */
export const ensureLocalChain = async (): Promise<{
  readonly started: boolean
  readonly stop: () => Promise<void>
}> => {
  if (await chainAnswers()) return { started: false, stop: async () => {} }
  const chain = await startLocalChain({ serve: { port } })
  return { started: true, stop: bounded(chain.stop) }
}
