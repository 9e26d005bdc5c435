/**
 * For tests that drive the provider's SDK against the mock network: the network on msw for the
 * test file (unhandled requests are errors; `watch`ed for `settle`), a temporary folder, and before
 * each test an empty network with `account` seeded and given an API key.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, beforeEach } from "vitest"
import type { MockNetwork } from "../../src/MockNetwork.ts"
import { startMockNetwork } from "../../src/node.ts"
import { watch } from "./keyNodes.ts"

export interface SdkHarness {
  readonly network: MockNetwork
  /** `account`'s API key in the running test. */
  readonly apiKey: string
  /** The file's temporary folder (removed after its tests). */
  readonly dir: string
}

export const sdkHarness = (account: { readonly address: string }, dirPrefix: string): SdkHarness => {
  const running = startMockNetwork({ onUnhandledFrame: "error" })
  watch(running.server)
  let apiKey = ""
  let dir = ""
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), dirPrefix))
  })
  afterAll(async () => {
    running.close()
    await rm(dir, { recursive: true, force: true })
  })
  beforeEach(() => {
    running.network.reset()
    apiKey = running.network.seedAccount(account.address).apiKey
  })
  return {
    network: running.network,
    get apiKey() {
      return apiKey
    },
    get dir() {
      return dir
    }
  }
}
