/**
 * `Doctor.run` against the served network over real sockets: the honest network answers every
 * probe as the contract declares (without an API key, the authenticated reads' declared 401;
 * with one, their successes), and a network told to drift (`serve`'s `drift`) is named drift by
 * drift: the field and the value it had, the undeclared status, the other x402 version. A host
 * that does not answer is unreachable, not a difference.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { Doctor } from "lighthouse-effect/contract"
import { type ServedMockNetwork, serveMockNetwork } from "lighthouse-effect/mocks/server"
import { x402FacilitatorNowhere } from "lighthouse-effect/mocks/testing"
import { afterAll, beforeAll } from "vitest"
import { alice } from "../support/accounts.ts"

let honest: ServedMockNetwork
let drifting: ServedMockNetwork
beforeAll(async () => {
  honest = await serveMockNetwork({ x402: x402FacilitatorNowhere })
  drifting = await serveMockNetwork({ x402: x402FacilitatorNowhere, drift: ["rename-field", "status", "x402-v2"] })
  for (const served of [honest, drifting]) served.network.seedAccount(alice.address, { apiKey: "doctor-key" })
})
afterAll(async () => {
  await honest.close()
  await drifting.close()
})

const run = (served: ServedMockNetwork, options: Doctor.DoctorOptions = {}) =>
  Doctor.run({ hosts: served.urls, ...options }).pipe(Effect.provide(FetchHttpClient.layer))

const line = (report: Doctor.DoctorReport, endpoint: string) => {
  const found = report.endpoints.find((entry) => entry.endpoint === endpoint)
  assert.isDefined(found, endpoint)
  return found!
}

const authenticated = ["account.userDataUsage", "account.filesUploaded", "ipns.getIpnsRecords"]

describe("Doctor", () => {
  it.effect("the honest network without an API key: every probe as declared, the authenticated reads their 401", () =>
    Effect.gen(function* () {
      const report = yield* run(honest)
      assert.isTrue(report.healthy)
      assert.isFalse(report.authenticated)
      assert.strictEqual(report.endpoints.length, 14)
      for (const entry of report.endpoints) assert.strictEqual(entry.verdict, "as-declared", entry.endpoint)
      for (const endpoint of authenticated) {
        assert.strictEqual(line(report, endpoint).status, 401)
        assert.isTrue(line(report, endpoint).declaredError)
      }
      // A CID nobody stores: the declared "not found" answers.
      assert.deepInclude(line(report, "files.fileInfo"), { status: 404, declaredError: true })
      assert.deepInclude(line(report, "keyNodes.getConditions"), { status: 400, declaredError: true })
      // The unpaid upload: version 1's 402, a declared answer.
      assert.deepInclude(line(report, "x402.upload"), { method: "POST", status: 402, declaredError: true })
      assert.strictEqual(line(report, "files.getTicker").url, `${honest.urls.api}/api/lighthouse/get_ticker?symbol=FIL`)
    })
  )

  it.effect("the honest network with an API key: the authenticated reads succeed as declared", () =>
    Effect.gen(function* () {
      const report = yield* run(honest, { apiKey: "doctor-key" })
      assert.isTrue(report.healthy)
      for (const endpoint of authenticated) {
        assert.deepInclude(line(report, endpoint), { verdict: "as-declared", status: 200, declaredError: false })
      }
      assert.deepStrictEqual(
        Doctor.describeReport(report).filter((text) => text.startsWith("account.userDataUsage")),
        [`account.userDataUsage  GET ${honest.urls.api}/api/user/user_data_usage  200  as declared`]
      )
    })
  )

  it.effect("a drifting network: each drift named, with the field and the value it had", () =>
    Effect.gen(function* () {
      const report = yield* run(drifting, { apiKey: "doctor-key" })
      assert.isFalse(report.healthy)
      const differing = report.endpoints
        .filter((entry) => entry.verdict !== "as-declared")
        .map((entry) => entry.endpoint)
      assert.deepStrictEqual(differing.sort(), ["account.userDataUsage", "files.getProof", "x402.upload"])

      const renamed = line(report, "account.userDataUsage")
      assert.strictEqual(renamed.status, 200)
      assert.deepStrictEqual(
        renamed.differences.map((d) => [d.field, d.value]),
        [["dataUsed", undefined]]
      )

      const status = line(report, "files.getProof")
      assert.deepStrictEqual(status.differences, [
        { field: "status", value: 404, problem: "the contract declares no 404 answer here" }
      ])

      const version = line(report, "x402.upload")
      assert.strictEqual(version.status, 402)
      const byField = new Map(version.differences.map((d) => [d.field, d.value]))
      assert.strictEqual(byField.get("x402Version"), 2)
      assert.isTrue(byField.has("accepts[0].maxAmountRequired"))
      assert.include(Doctor.describeReport(report).join("\n"), "  x402Version: 2 (")
    })
  )

  it.effect("a host that does not answer: unreachable, with why", () =>
    Effect.gen(function* () {
      const report = yield* run(honest, { hosts: { ...honest.urls, gateway: "http://127.0.0.1:9" } })
      assert.isFalse(report.healthy)
      const providers = line(report, "gateway.providers")
      assert.strictEqual(providers.verdict, "unreachable")
      assert.isString(providers.reason)
      assert.deepStrictEqual(providers.differences, [])
      assert.strictEqual(report.endpoints.filter((entry) => entry.verdict === "unreachable").length, 1)
    })
  )
})
