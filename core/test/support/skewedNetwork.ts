/**
 * The whole mock network served for a test file, its key nodes' clock able to run ahead of the
 * client's (the TestClock): the nodes then refuse a JWT the client still holds for valid.
 */
import { createMockNetwork } from "lighthouse-effect/mocks"
import { makeNetworkHarness } from "./network.ts"

/** `makeNetworkHarness` over the whole network, with `runNodesAhead(ms)`, back to 0 before each test. */
export const makeSkewedNetworkHarness = () => {
  let nodesAhead = 0
  const harness = makeNetworkHarness((clock) => {
    const network = createMockNetwork({ clock: () => clock() + nodesAhead })
    return {
      handlers: network.handlers,
      state: network.state,
      faults: network.faults,
      reset: () => {
        network.reset()
        nodesAhead = 0
      }
    }
  })
  const runNodesAhead = (ms: number) => {
    nodesAhead = ms
  }
  return { ...harness, runNodesAhead }
}
