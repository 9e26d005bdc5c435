/**
 * Helpers shared by the key-node tests: fixed wallets, the mock nodes served for a test file, a
 * sign-in against the nodes, a raw HTTP caller for the wire-level tests, condition builders, and
 * `settle`, which runs a promise under fake `setTimeout` so kavach's 1 s pauses between nodes
 * cost no real time.
 */
import { type SetupServer, setupServer } from "msw/node"
import type { PrivateKeyAccount } from "viem/accounts"
import { afterAll, afterEach, beforeAll, beforeEach, expect, vi } from "vitest"
import { type KeyNodesOptions, makeKeyNodes } from "../../src/keyNodes/index.ts"
import { testCids, testWallets } from "../../src/testing/Wallets.ts"

/** Fixed test accounts (never used anywhere real). */
export const wallets = testWallets

export const host = "https://encryption.lighthouse.storage"

/** CIDs that pass the provider's pattern and decode. */
export const cids = testCids

export interface Answer {
  readonly status: number
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers field by field
  readonly body: any
}

/** One JSON call to the encryption host, as kavach makes it (header always present). */
export const call = async (method: string, path: string, body?: unknown, token?: string): Promise<Answer> => {
  const response = await fetch(`${host}${path}`, {
    method,
    headers: { "Content-type": "application/json", Authorization: token ? `Bearer ${token}` : "" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {
    // Non-JSON answers stay text.
  }
  return { status: response.status, body: parsed }
}

/** Gets a fresh auth message for the account and signs it (EIP-191). */
export const signIn = async (account: PrivateKeyAccount): Promise<string> => {
  const answer = await call("GET", `/api/message/${account.address}`)
  if (answer.status !== 200) throw new Error(`auth message: ${answer.status} ${JSON.stringify(answer.body)}`)
  return account.signMessage({ message: answer.body[0].message as string })
}

/** A JWT for the account, through a fresh signature. */
export const jwtFor = async (account: PrivateKeyAccount): Promise<{ token: string; refreshToken: string }> => {
  const signature = await signIn(account)
  const answer = await call("POST", "/api/message/get-jwt", { address: account.address, signature, chain: "ALL" })
  if (answer.status !== 200) throw new Error(`get-jwt: ${answer.status} ${JSON.stringify(answer.body)}`)
  return answer.body
}

/** Alice creates `cid` on all 5 nodes (her shard `n` on node `n`) with these condition fields; returns her token. */
export const createAsAlice = async (cid: string, fields: Record<string, unknown>): Promise<string> => {
  const { token } = await jwtFor(wallets.alice)
  for (let n = 1; n <= 5; n++) {
    const answer = await call(
      "POST",
      `/api/fileAccessConditions/${n}`,
      { address: wallets.alice.address, cid, decryptionType: "ADDRESS", ...fields, payload: shard(n) },
      token
    )
    expect(answer).toEqual({ status: 200, body: { message: "success", data: { cid } } })
  }
  return token
}

/** An EVM `getBlockNumber` condition (no contract): true on every chain that has reached block `value`. */
export const blockNumberAtLeast = (chain: string, value: number | string = 0, id = 1) => ({
  id,
  chain,
  method: "getBlockNumber",
  standardContractType: "",
  returnValueTest: { comparator: ">=", value }
})

/** The ERC20 token on FantomTest the provider's examples condition on. */
export const fantomToken = "0xF0Bc72fA04aea04d04b1fA80B359Adb566E1c8B1"

/** An ERC20 `balanceOf` condition on the caller's balance (`:userAddress`) of the token at `contractAddress`. */
export const erc20Balance = (
  chain: string,
  contractAddress: string,
  returnValueTest: { readonly comparator: string; readonly value: unknown },
  id = 1
) => ({
  id,
  chain,
  method: "balanceOf",
  standardContractType: "ERC20",
  contractAddress,
  parameters: [":userAddress"],
  returnValueTest
})

/** A shard that looks like kavach's: 64 hex characters each. */
export const shard = (n: number) => ({
  key: n.toString(16).padStart(64, "0"),
  index: (n + 100).toString(16).padStart(64, "0")
})

let inflight = 0

/** Counts the requests `server` is answering, so `settle` never moves the clock under one. */
export const watch = <S extends SetupServer>(server: S): S => {
  server.events.on("request:start", () => {
    inflight += 1
  })
  server.events.on("request:end", () => {
    inflight -= 1
  })
  server.events.on("unhandledException", () => {
    inflight -= 1
  })
  return server
}

/**
 * Serves mock key nodes made with `options` for the current test file (`watch`ed; unhandled
 * requests are errors), empties them and clears `options.faults` before each test, and with
 * `fakeTimers` fakes `setTimeout` during each test (see `settle`).
 */
export const serveKeyNodes = (options: KeyNodesOptions = {}, { fakeTimers = false } = {}) => {
  const keyNodes = makeKeyNodes(options)
  const server = watch(setupServer(...keyNodes.handlers))
  beforeAll(() => server.listen({ onUnhandledFrame: "error" }))
  afterAll(() => server.close())
  beforeEach(() => {
    keyNodes.reset()
    options.faults?.clear()
    if (fakeTimers) vi.useFakeTimers({ toFake: ["setTimeout"] })
  })
  afterEach(() => {
    vi.useRealTimers()
  })
  return { keyNodes, server }
}

const realPause = (ms: number) =>
  new Promise<void>((resolve) => {
    // setInterval is not faked (only setTimeout is), so this is real time.
    const id = setInterval(() => {
      clearInterval(id)
      resolve()
    }, ms)
  })

/**
 * Awaits `promise` while advancing faked `setTimeout` a second at a time — only while no request
 * is being answered by a `watch`ed server, so the client's own pauses (kavach's 1 s between nodes)
 * cost no real time but a node doing real work (a chain call, a slow fault) never sees seconds fly
 * by under it (undici's socket timers would fire and the client would retry). `inflightStepMs`
 * lets time creep forward during requests, for slow-node faults.
 * Call `vi.useFakeTimers({ toFake: ["setTimeout"] })` first.
 */
export const settle = async <A>(
  promise: Promise<A>,
  options: { readonly inflightStepMs?: number } = {}
): Promise<A> => {
  let done = false
  const tracked = promise.finally(() => {
    done = true
  })
  // Handled here so a rejection met while still advancing is not reported as unhandled; the caller still sees it.
  tracked.catch(() => undefined)
  while (!done) {
    await realPause(2)
    if (inflight > 0) {
      if (options.inflightStepMs !== undefined) await vi.advanceTimersByTimeAsync(options.inflightStepMs)
    } else {
      await vi.advanceTimersByTimeAsync(1000)
    }
  }
  return tracked
}
