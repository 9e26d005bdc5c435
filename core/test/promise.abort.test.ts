/**
 * Cancellation through the Promise facade, over real sockets: a trailing `{ signal }` interrupts
 * the call, the HTTP request is aborted, and the promise rejects with the typed `Aborted`.
 */

import { type ServedMockNetwork, serveMockNetwork } from "lighthouse-effect/mocks/server"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import * as Errors from "../src/Errors.ts"
import { createLighthouseNode } from "../src/node.ts"
import type { LighthouseClient } from "../src/promise.ts"
import * as Input from "../src/upload/Input.ts"

const owner = privateKeyToAccount(generatePrivateKey())
let served: ServedMockNetwork
let lighthouse: LighthouseClient
let apiKey: string

beforeAll(async () => {
  served = await serveMockNetwork()
  lighthouse = createLighthouseNode({ hosts: served.urls })
})
afterAll(async () => {
  await lighthouse.dispose()
  await served.close()
})
beforeEach(() => {
  served.network.reset()
  apiKey = served.network.seedAccount(owner.address, { dataLimit: 16 * 1024 * 1024 * 1024 }).apiKey
})

/** 1 GiB in 64 KiB chunks, produced as fast as the request takes them; counts what was pulled. */
const largeBody = () => {
  const chunk = new Uint8Array(64 * 1024).fill(7)
  let pulled = 0
  const stream = new ReadableStream<Uint8Array>({
    pull: (controller) => {
      if (pulled >= 16 * 1024) return controller.close()
      pulled++
      controller.enqueue(chunk.slice())
    }
  })
  return { stream, pulled: () => pulled }
}

const uploadsOf = async () => {
  const cids: Array<string> = []
  for await (const file of lighthouse.files.uploads(apiKey)) cids.push(file.cid)
  return cids
}

describe("Promise facade: AbortSignal", () => {
  it("an upload of a large streamed body aborted after 300 ms rejects with Aborted at once, and nothing is recorded", async () => {
    const body = largeBody()
    const controller = new AbortController()
    const started = performance.now()
    setTimeout(() => controller.abort(), 300)
    const failure = await lighthouse.upload
      .file(Input.stream(body.stream, { name: "large.bin" }), { apiKey, cidVersion: 1 }, { signal: controller.signal })
      .then(
        () => "resolved",
        (error: unknown) => error
      )
    const elapsed = performance.now() - started
    expect(failure).toBeInstanceOf(Errors.Aborted)
    expect(failure).toMatchObject({ _tag: "Aborted", message: "This operation was aborted" })
    expect(elapsed).toBeGreaterThanOrEqual(290)
    expect(elapsed).toBeLessThan(1_300)
    // The body was being sent when the signal fired, and stopped there.
    const pulledAtAbort = body.pulled()
    expect(pulledAtAbort).toBeGreaterThan(0)
    expect(pulledAtAbort).toBeLessThan(16 * 1024)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(body.pulled()).toBe(pulledAtAbort)
    expect(await uploadsOf()).toEqual([])
    expect(served.network.state.files.of(owner.address.toLowerCase())).toHaveLength(0)
    expect(served.network.state.accounts.get(owner.address.toLowerCase())!.dataUsed).toBe(0)
  })

  it("an already aborted signal rejects with Aborted without a request; no signal changes nothing", async () => {
    const failure = await lighthouse.files.usage(apiKey, { signal: AbortSignal.abort() }).catch((e: unknown) => e)
    expect(failure).toBeInstanceOf(Errors.Aborted)
    const usage = await lighthouse.files.usage(apiKey, { signal: new AbortController().signal })
    expect(usage.dataUsed).toBe(0)
    expect((await lighthouse.files.usage(apiKey)).dataUsed).toBe(0)
  })

  it("an async iterable stops with Aborted when its signal aborts", async () => {
    const controller = new AbortController()
    controller.abort()
    const seen: Array<unknown> = []
    const failure = await (async () => {
      for await (const file of lighthouse.files.uploads(apiKey, undefined, { signal: controller.signal }))
        seen.push(file)
    })().catch((e: unknown) => e)
    expect(failure).toBeInstanceOf(Errors.Aborted)
    expect(seen).toEqual([])
  })
})
