/**
 * The pieces the `…Config` layers are made of: `fromEnv` (only the variables that are set) and
 * `merge` (explicit options over the environment's, host by host).
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect } from "effect"
import * as LighthouseConfig from "../../src/LighthouseConfig.ts"

const read = (env: Record<string, string>) => LighthouseConfig.fromEnv.parse(ConfigProvider.fromEnv({ env }))

describe("LighthouseConfig.fromEnv", () => {
  it.effect("nothing set: no overrides at all, so the defaults stay", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* read({}), { hosts: {}, nodes: {} })
      assert.deepStrictEqual(LighthouseConfig.make(yield* read({})), LighthouseConfig.defaults)
    })
  )

  it.effect("only the variables that are set, converted", () =>
    Effect.gen(function* () {
      const options = yield* read({
        LIGHTHOUSE_GATEWAY_URL: "http://127.0.0.1:8733",
        LIGHTHOUSE_TRANSFER_TIMEOUT_MS: "60000",
        LIGHTHOUSE_NETWORK: "calibration",
        OTHER_VARIABLE: "ignored"
      })
      assert.deepStrictEqual(Object.keys(options).sort(), ["defaultNetwork", "hosts", "nodes", "transferTimeout"])
      assert.deepStrictEqual(options.hosts, { gateway: "http://127.0.0.1:8733" })
      assert.deepStrictEqual(options.nodes, {})
      assert.strictEqual(options.defaultNetwork, "calibration")
      assert.strictEqual(Duration.toMillis(Duration.fromInputUnsafe(options.transferTimeout ?? 0)), 60_000)
    })
  )

  it.effect("a wrong value fails with the variable's name", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(read({ LIGHTHOUSE_TRANSFER_TIMEOUT_MS: "0" }))
      assert.strictEqual(
        error.message,
        `SchemaError(Expected a value greater than 0\n  at ["LIGHTHOUSE_TRANSFER_TIMEOUT_MS"])`
      )
    })
  )
})

describe("LighthouseConfig.merge", () => {
  const env: LighthouseConfig.PartialOptions = {
    hosts: { api: "http://env-api", gateway: "http://env-gateway" },
    requestTimeout: 4321,
    nodes: { mode: "concurrent" },
    defaultNetwork: "calibration"
  }

  it("explicit options win key by key; the rest of the environment's stays", () => {
    const merged = LighthouseConfig.merge(env, {
      hosts: { gateway: "http://explicit-gateway" },
      nodes: { tries: 5 },
      defaultNetwork: "polygon"
    })
    assert.deepStrictEqual(merged, {
      hosts: { api: "http://env-api", gateway: "http://explicit-gateway" },
      requestTimeout: 4321,
      nodes: { mode: "concurrent", tries: 5 },
      defaultNetwork: "polygon"
    })
  })

  it("an option given as undefined (JavaScript, or a variable read by hand) keeps the environment's value", () => {
    const unset = process.env.LIGHTHOUSE_CONFIG_TEST_UNSET_VARIABLE
    const merged = LighthouseConfig.merge(env, {
      hosts: { api: unset } as { api: string },
      requestTimeout: unset as unknown as number
    })
    assert.strictEqual(merged.hosts?.api, "http://env-api")
    assert.strictEqual(merged.requestTimeout, 4321)
  })
})
