import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Layer } from "effect"
import * as Config from "../src/LighthouseConfig.ts"
import { networks, withLocalDeployment } from "../src/Networks.ts"

const fromEnv = (env: Record<string, string>) =>
  Effect.gen(function* () {
    return yield* Config.LighthouseConfig
  }).pipe(Effect.provide(Config.layerConfig.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env }))))))

const millis = (d: Duration.Duration) => Duration.toMillis(d)

describe("Config", () => {
  it.effect("defaults: the provider's hosts, 8000 ms / 7 200 000 ms, sequential 1000 ms × 3 tries, polygon", () =>
    Effect.gen(function* () {
      const config = yield* Config.LighthouseConfig
      assert.deepStrictEqual(config.hosts, {
        api: "https://api.lighthouse.storage",
        node: "https://upload.lighthouse.storage",
        gateway: "https://gateway.lighthouse.storage",
        encryption: "https://encryption.lighthouse.storage",
        walrusNode: "https://upload-walrus.lighthouse.storage",
        walrusGateway: "https://gateway-walrus.lighthouse.storage"
      })
      assert.deepStrictEqual(Config.DefaultHosts, config.hosts)
      assert.strictEqual(millis(config.requestTimeout), 8000)
      assert.strictEqual(millis(config.transferTimeout), 7_200_000)
      assert.strictEqual(config.nodes.mode, "sequential")
      assert.strictEqual(millis(config.nodes.pause), 1000)
      assert.strictEqual(config.nodes.tries, 3)
      assert.strictEqual(millis(config.nodes.retryDelay), 1000)
      assert.strictEqual(config.defaultNetwork, "polygon")
      assert.strictEqual(config.networks, networks)
    }).pipe(Effect.provide(Config.layer()))
  )

  it.effect("make() and make({}) equal the defaults", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(Config.make(), Config.defaults)
      assert.deepStrictEqual(Config.make({}), Config.defaults)
    })
  )

  it.effect("overrides merge with the defaults, field by field", () =>
    Effect.sync(() => {
      const config = Config.make({
        hosts: { encryption: "http://127.0.0.1:4000/kms" },
        requestTimeout: "2 seconds",
        nodes: { mode: "concurrent", tries: 5 },
        defaultNetwork: "calibration"
      })
      assert.deepStrictEqual(config.hosts, {
        api: "https://api.lighthouse.storage",
        node: "https://upload.lighthouse.storage",
        gateway: "https://gateway.lighthouse.storage",
        encryption: "http://127.0.0.1:4000/kms",
        walrusNode: "https://upload-walrus.lighthouse.storage",
        walrusGateway: "https://gateway-walrus.lighthouse.storage"
      })
      assert.strictEqual(millis(config.requestTimeout), 2000)
      assert.strictEqual(millis(config.transferTimeout), 7_200_000)
      assert.deepStrictEqual(
        {
          mode: config.nodes.mode,
          pause: millis(config.nodes.pause),
          tries: config.nodes.tries,
          retryDelay: millis(config.nodes.retryDelay)
        },
        { mode: "concurrent", pause: 1000, tries: 5, retryDelay: 1000 }
      )
      assert.strictEqual(config.defaultNetwork, "calibration")
    })
  )

  it.effect("durations are accepted as numbers (millis), strings or Durations", () =>
    Effect.sync(() => {
      const config = Config.make({
        requestTimeout: 250,
        transferTimeout: Duration.minutes(1),
        nodes: { pause: "1500 millis", retryDelay: 0 }
      })
      assert.strictEqual(millis(config.requestTimeout), 250)
      assert.strictEqual(millis(config.transferTimeout), 60_000)
      assert.strictEqual(millis(config.nodes.pause), 1500)
      assert.strictEqual(millis(config.nodes.retryDelay), 0)
    })
  )

  it.effect("a network table given replaces the default one", () => {
    const table = withLocalDeployment({ paymentContract: "0x5FbDB2315678afecb367f032d93F642f64180aa3" })
    return Effect.gen(function* () {
      const config = yield* Config.LighthouseConfig
      assert.strictEqual(config.networks, table)
      assert.strictEqual(config.networks.localhost?.paymentContract, "0x5FbDB2315678afecb367f032d93F642f64180aa3")
      assert.strictEqual(config.defaultNetwork, "polygon")
    }).pipe(Effect.provide(Config.layer({ networks: table })))
  })

  describe("layerConfig (environment)", () => {
    it.effect("unset variables keep the defaults", () =>
      Effect.gen(function* () {
        const config = yield* fromEnv({})
        assert.deepStrictEqual(config, Config.defaults)
      })
    )

    it.effect("reads every variable", () =>
      Effect.gen(function* () {
        const config = yield* fromEnv({
          LIGHTHOUSE_API_URL: "http://127.0.0.1:3000",
          LIGHTHOUSE_NODE_URL: "http://127.0.0.1:3001",
          LIGHTHOUSE_GATEWAY_URL: "http://127.0.0.1:3002",
          LIGHTHOUSE_ENCRYPTION_URL: "http://127.0.0.1:3003/enc",
          LIGHTHOUSE_WALRUS_NODE_URL: "http://127.0.0.1:3004",
          LIGHTHOUSE_WALRUS_GATEWAY_URL: "http://127.0.0.1:3005",
          LIGHTHOUSE_REQUEST_TIMEOUT_MS: "1234",
          LIGHTHOUSE_TRANSFER_TIMEOUT_MS: "99000",
          LIGHTHOUSE_NODE_POLICY: "concurrent",
          LIGHTHOUSE_NETWORK: "fantom-testnet"
        })
        assert.deepStrictEqual(config.hosts, {
          api: "http://127.0.0.1:3000",
          node: "http://127.0.0.1:3001",
          gateway: "http://127.0.0.1:3002",
          encryption: "http://127.0.0.1:3003/enc",
          walrusNode: "http://127.0.0.1:3004",
          walrusGateway: "http://127.0.0.1:3005"
        })
        assert.strictEqual(millis(config.requestTimeout), 1234)
        assert.strictEqual(millis(config.transferTimeout), 99_000)
        assert.strictEqual(config.nodes.mode, "concurrent")
        // The policy variable only chooses the mode; pause and tries stay the provider's.
        assert.strictEqual(millis(config.nodes.pause), 1000)
        assert.strictEqual(config.nodes.tries, 3)
        assert.strictEqual(millis(config.nodes.retryDelay), 1000)
        assert.strictEqual(config.defaultNetwork, "fantom-testnet")
      })
    )

    it.effect("some variables set, the others default", () =>
      Effect.gen(function* () {
        const config = yield* fromEnv({
          LIGHTHOUSE_GATEWAY_URL: "http://gw.local",
          LIGHTHOUSE_NODE_POLICY: "sequential"
        })
        assert.deepStrictEqual(config, {
          ...Config.defaults,
          hosts: { ...Config.DefaultHosts, gateway: "http://gw.local" }
        })
      })
    )

    it.effect("the same through ConfigProvider.fromUnknown", () =>
      Effect.gen(function* () {
        const config = yield* Effect.gen(function* () {
          return yield* Config.LighthouseConfig
        }).pipe(
          Effect.provide(
            Config.layerConfig.pipe(
              Layer.provide(
                ConfigProvider.layer(
                  ConfigProvider.fromUnknown({ LIGHTHOUSE_REQUEST_TIMEOUT_MS: 500, LIGHTHOUSE_NETWORK: "binance" })
                )
              )
            )
          )
        )
        assert.strictEqual(millis(config.requestTimeout), 500)
        assert.strictEqual(config.defaultNetwork, "binance")
      })
    )

    const policy = `SchemaError(Expected "sequential" | "concurrent"\n  at ["LIGHTHOUSE_NODE_POLICY"])`
    const network =
      'SchemaError(Expected "fantom" | "polygon" | "binance" | "optimism" | "filecoin" | "calibration" | "fantom-testnet" | "polygon-testnet" | "binance-testnet" | "optimism-testnet" | "wallaby-testnet" | "localhost"\n  at ["LIGHTHOUSE_NETWORK"])'
    const notNumber = (name: string) => `SchemaError(Expected a string representing a finite number\n  at ["${name}"])`
    const notPositive = (name: string) => `SchemaError(Expected a value greater than 0\n  at ["${name}"])`
    it.effect.each([
      ["LIGHTHOUSE_NODE_POLICY", "parallel", policy],
      ["LIGHTHOUSE_NODE_POLICY", "SEQUENTIAL", policy],
      ["LIGHTHOUSE_NETWORK", "mars", network],
      ["LIGHTHOUSE_NETWORK", "Polygon", network],
      ["LIGHTHOUSE_REQUEST_TIMEOUT_MS", "eight seconds", notNumber("LIGHTHOUSE_REQUEST_TIMEOUT_MS")],
      [
        "LIGHTHOUSE_REQUEST_TIMEOUT_MS",
        "8000.5",
        `SchemaError(Expected an integer\n  at ["LIGHTHOUSE_REQUEST_TIMEOUT_MS"])`
      ],
      ["LIGHTHOUSE_REQUEST_TIMEOUT_MS", "0", notPositive("LIGHTHOUSE_REQUEST_TIMEOUT_MS")],
      ["LIGHTHOUSE_REQUEST_TIMEOUT_MS", "-5", notPositive("LIGHTHOUSE_REQUEST_TIMEOUT_MS")],
      ["LIGHTHOUSE_TRANSFER_TIMEOUT_MS", "2h", notNumber("LIGHTHOUSE_TRANSFER_TIMEOUT_MS")],
      ["LIGHTHOUSE_TRANSFER_TIMEOUT_MS", "0", notPositive("LIGHTHOUSE_TRANSFER_TIMEOUT_MS")]
    ] as const)("%s=%s is rejected with a ConfigError naming the variable", ([name, value, message]) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(fromEnv({ [name]: value }))
        assert.strictEqual(error._tag, "ConfigError")
        assert.strictEqual(error.message, message)
      })
    )
  })
})
