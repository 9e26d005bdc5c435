/**
 * `upload --profile`: the layout of IPIP-499's profile goes on the wire, the simulated node
 * imports with it, and the verified upload answers the profile's CID (`hello world` is the
 * IPIP's `unixfs-v1-2025` vector); an unknown profile is refused before anything is sent.
 */
import { type RunningMockNetwork, startMockNetwork } from "lighthouse-effect/mocks/node"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshConfigHome, json, run } from "./support/commands.ts"

let mock: RunningMockNetwork
beforeAll(() => {
  mock = startMockNetwork({ onUnhandledFrame: "error" })
})
afterAll(() => mock.close())

const account = async () => {
  const home = await freshConfigHome()
  const env = { LIGHTHOUSE_NODE_POLICY: "concurrent", XDG_CONFIG_HOME: home, LIGHTHOUSE_WALLET_PASSWORD: "pw-profile" }
  expect((await run(["wallet", "create", "--json"], env)).code).toBe(0)
  expect((await run(["api-key", "--json"], env)).code).toBe(0)
  return env
}

describe("upload --profile", () => {
  it("unixfs-v1-2025: IPIP-499's hello world vector; the default stays kubo's legacy layout", async () => {
    const env = await account()
    const modern = await run(["upload", "-", "--profile", "unixfs-v1-2025", "--json"], env, "hello world")
    expect(modern.code, modern.stderr).toBe(0)
    expect(json(modern)).toMatchObject({ cid: "bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e" })
    const legacy = await run(["upload", "-", "--cid-version", "0", "--json"], env, "hello world")
    expect(legacy.code, legacy.stderr).toBe(0)
    expect(json(legacy)).toMatchObject({ cid: "Qmf412jQZiuVUtdgnB36FXFX7xg5V6KEbSJ4dpQuhkLyfD" })
  })

  it("an unknown profile is refused before any account is needed", async () => {
    const env = { XDG_CONFIG_HOME: await freshConfigHome() }
    const refused = await run(["upload", "-", "--profile", "unixfs-v2", "--json"], env, "x")
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain("unixfs-v1-2025")
  })
})
