/**
 * `Doctor.run` against the served network over real sockets: the honest network answers every
 * probe as the contract declares (without an API key: the authenticated reads' declared 401;
 * with one: their successes).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { Doctor } from "lighthouse-effect"
import { type ServedMockNetwork, serveMockNetwork } from "lighthouse-effect/mocks/server"
import { createPublicClient, createWalletClient, http } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { hardhat } from "viem/chains"
import { afterAll, beforeAll } from "vitest"
import { alice } from "../support/accounts.ts"

// The unpaid x402 probe is answered before any chain call: the facilitator points at a closed port.
const nowhere = http("http://127.0.0.1:9", { retryCount: 0 })
const x402 = {
  publicClient: createPublicClient({ chain: hardhat, transport: nowhere }),
  settler: createWalletClient({ account: privateKeyToAccount(`0x${"11".repeat(32)}`), chain: hardhat, transport: nowhere }),
  asset: "0x2222222222222222222222222222222222222222",
  payTo: "0x1111111111111111111111111111111111111111"
} as const

let served: ServedMockNetwork
beforeAll(async () => {
  served = await serveMockNetwork({ x402 })
  served.network.seedAccount(alice.address, { apiKey: "doctor-key" })
})
afterAll(() => served.close())

const run = (options: Doctor.DoctorOptions) =>
  Doctor.run({ hosts: served.urls, ...options }).pipe(Effect.provide(FetchHttpClient.layer))

describe("Doctor", () => {
  it.effect("the honest network: every probe as declared", () =>
    Effect.gen(function* () {
      const report = yield* run({})
      console.log(Doctor.describeReport(report).join("\n"))
      const withKey = yield* run({ apiKey: "doctor-key" })
      console.log(Doctor.describeReport(withKey).join("\n"))
      assert.isTrue(report.healthy)
    })
  )
})
