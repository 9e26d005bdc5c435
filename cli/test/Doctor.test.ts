/**
 * `lighthouse-effect doctor` in process against served networks (the hosts from `LIGHTHOUSE_*`):
 * the honest network exits 0 with every endpoint as declared; one told to drift exits 1 with the
 * report on stdout (each difference under its endpoint) and `NetworkDiffers` on stderr, or, with
 * `--json`, one JSON value: the error carrying the report.
 */
import { type ServedMockNetwork, serveMockNetwork } from "lighthouse-effect/mocks/server"
import { x402FacilitatorNowhere } from "lighthouse-effect/mocks/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshConfigHome, json, run } from "./support/commands.ts"

const owner = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"

let honest: ServedMockNetwork
let drifting: ServedMockNetwork
let home: string
beforeAll(async () => {
  honest = await serveMockNetwork({ x402: x402FacilitatorNowhere })
  drifting = await serveMockNetwork({ x402: x402FacilitatorNowhere, drift: ["rename-field", "status", "x402-v2"] })
  for (const served of [honest, drifting]) served.network.seedAccount(owner, { apiKey: "doctor-key" })
  home = await freshConfigHome()
})
afterAll(async () => {
  await honest.close()
  await drifting.close()
})

const envOf = (served: ServedMockNetwork) => ({
  XDG_CONFIG_HOME: home,
  LIGHTHOUSE_API_KEY: "doctor-key",
  LIGHTHOUSE_API_URL: served.urls.api,
  LIGHTHOUSE_NODE_URL: served.urls.node,
  LIGHTHOUSE_GATEWAY_URL: served.urls.gateway,
  LIGHTHOUSE_ENCRYPTION_URL: served.urls.encryption
})

describe("doctor", () => {
  it("the honest network: exit 0, every endpoint as declared", async () => {
    const ran = await run(["doctor", "--json"], envOf(honest))
    expect(ran.code).toBe(0)
    const report = json(ran) as { healthy: boolean; authenticated: boolean; endpoints: Array<{ verdict: string }> }
    expect(report.healthy).toBe(true)
    expect(report.authenticated).toBe(true)
    expect(report.endpoints.map((line) => line.verdict)).toEqual(Array(14).fill("as-declared"))

    const text = await run(["doctor"], envOf(honest))
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(
      `account.userDataUsage  GET ${honest.urls.api}/api/user/user_data_usage  200  as declared`
    )
    expect(text.stderr).toBe("")
  })

  it("a drifting network: exit 1, each drift under its endpoint, NetworkDiffers on stderr", async () => {
    const ran = await run(["doctor"], envOf(drifting))
    expect(ran.code).toBe(1)
    expect(ran.stderr.trim()).toBe("3 of 14 endpoints differ from the contract, 0 unreachable")
    const lines = ran.stdout.split("\n")
    const lineUnder = (head: string) => lines[lines.findIndex((line) => line.startsWith(head)) + 1]
    expect(lines.find((line) => line.startsWith("files.getProof"))).toMatch(/ 404 {2}differs$/)
    expect(lineUnder("files.getProof")).toBe("  status: 404 (the contract declares no 404 answer here)")
    expect(lineUnder("account.userDataUsage")).toMatch(/^ {2}dataUsed: undefined \(/)
    expect(lineUnder("x402.upload")).toMatch(/^ {2}x402Version: 2 \(/)
  })

  it("--json on a drifting network: one JSON value, the error carrying the report", async () => {
    const ran = await run(["doctor", "--json"], envOf(drifting))
    expect(ran.code).toBe(1)
    const { error } = json(ran) as {
      error: {
        _tag: string
        message: string
        report: { healthy: boolean; endpoints: Array<{ endpoint: string; verdict: string }> }
      }
    }
    expect(error._tag).toBe("NetworkDiffers")
    expect(error.report.healthy).toBe(false)
    expect(
      error.report.endpoints
        .filter((line) => line.verdict === "differs")
        .map((line) => line.endpoint)
        .sort()
    ).toEqual(["account.userDataUsage", "files.getProof", "x402.upload"])
  })
})
