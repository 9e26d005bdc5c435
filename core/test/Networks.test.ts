import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import {
  defaultNetwork,
  Network,
  NetworkName,
  NetworkTable,
  networks,
  Token,
  TokenSymbol,
  withLocalDeployment
} from "../src/Networks.ts"

/** Spec §9, to the figure. */
const chainIds = {
  fantom: 250,
  polygon: 137,
  binance: 56,
  optimism: 10,
  filecoin: 314,
  calibration: 314159,
  "polygon-testnet": 80001,
  "binance-testnet": 97,
  "wallaby-testnet": 31415,
  "fantom-testnet": 4002,
  "optimism-testnet": 69
} as const

const specChains = Object.keys(chainIds) as Array<keyof typeof chainIds>

describe("Networks", () => {
  it.effect("the provider's 11 chains, plus localhost, and nothing else", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(Object.keys(networks).sort(), [...specChains, "localhost"].sort())
      assert.deepStrictEqual([...NetworkName.literals].sort(), [...specChains, "localhost"].sort())
      assert.strictEqual(specChains.length, 11)
    })
  )

  it.effect.each(specChains)("%s has the provider's chain id", (name) =>
    Effect.sync(() => {
      assert.strictEqual(networks[name].chainId, chainIds[name])
    })
  )

  it.effect("fantom-testnet is 0xfa2 = 4002; localhost is Hardhat's 31337", () =>
    Effect.sync(() => {
      assert.strictEqual(networks["fantom-testnet"].chainId, 0xfa2)
      assert.strictEqual(networks["fantom-testnet"].chainId, 4002)
      assert.strictEqual(networks.localhost.chainId, 31337)
    })
  )

  it.effect("polygon is the default network", () =>
    Effect.sync(() => {
      assert.strictEqual(defaultNetwork, "polygon")
    })
  )

  it.effect("polygon: usdc and usdt 6 decimals, dai 18, native 18, as the provider lists them", () =>
    Effect.sync(() => {
      const polygon = networks.polygon
      assert.strictEqual(polygon.symbol, "MATIC")
      assert.strictEqual(polygon.tokens.usdc?.decimals, 6)
      assert.strictEqual(polygon.tokens.usdt?.decimals, 6)
      assert.strictEqual(polygon.tokens.dai?.decimals, 18)
      assert.strictEqual(polygon.nativeDecimals, 18)
      assert.strictEqual(polygon.tokens.usdc?.address, "0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174")
      assert.strictEqual(polygon.tokens.usdt?.address, "0xc2132D05D31c914a87C6611C10748AEb04B58e8F")
      assert.strictEqual(polygon.tokens.dai?.address, "0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063")
      assert.strictEqual(polygon.paymentContract, "0xaD13C488b01DbcE976B67e552Bd352e824E53E1D")
    })
  )

  it.effect("every native decimals given is 18; dai is 18 wherever it is listed", () =>
    Effect.sync(() => {
      const withNative = Object.entries(networks)
        .filter(([, n]) => n.nativeDecimals !== undefined)
        .map(([name, n]) => [name, n.nativeDecimals])
      assert.deepStrictEqual(withNative, [
        ["polygon", 18],
        ["filecoin", 18],
        ["calibration", 18],
        ["localhost", 18]
      ])
      for (const n of Object.values(networks))
        if (n.tokens.dai !== undefined) assert.strictEqual(n.tokens.dai.decimals, 18)
    })
  )

  it.effect.each(Object.keys(networks))("%s decodes with the Network schema, unchanged", (name) =>
    Effect.gen(function* () {
      const entry = networks[name as NetworkName]
      const decoded = yield* Schema.decodeUnknownEffect(Network)(entry)
      assert.deepStrictEqual(decoded, entry)
      for (const symbol of Object.keys(decoded.tokens)) assert.isTrue(Schema.is(TokenSymbol)(symbol))
    })
  )

  it.effect("the whole table decodes as a NetworkTable", () =>
    Effect.gen(function* () {
      const decoded = yield* Schema.decodeUnknownEffect(NetworkTable)(networks)
      assert.deepStrictEqual(decoded, networks)
    })
  )

  it.effect("the schema rejects a bad address, a zero chain id and fractional decimals", () =>
    Effect.gen(function* () {
      const bad = [
        { ...networks.polygon, paymentContract: "0x123" },
        { ...networks.polygon, chainId: 0 },
        { ...networks.polygon, chainId: 1.5 },
        { ...networks.polygon, tokens: { usdc: { address: networks.fantom.paymentContract, decimals: 6.5 } } },
        { ...networks.polygon, tokens: { usdc: { address: networks.fantom.paymentContract, decimals: 37 } } },
        { ...networks.polygon, rpc: "" },
        { ...networks.polygon, symbol: "" }
      ]
      for (const entry of bad) {
        const error = yield* Effect.flip(Schema.decodeUnknownEffect(Network)(entry))
        assert.strictEqual(error._tag, "SchemaError")
      }
    })
  )

  it.effect("spot figures of other chains", () =>
    Effect.sync(() => {
      assert.strictEqual(networks.fantom.tokens.usdc?.decimals, 6)
      assert.strictEqual(networks.binance.tokens.usdt?.decimals, 18)
      assert.strictEqual(networks.filecoin.tokens.usdc?.decimals, 6)
      assert.strictEqual(networks.calibration.tokens.usdt?.decimals, 18)
      assert.strictEqual(networks.calibration.rpc, "https://api.calibration.node.glif.io/rpc/v1")
      assert.strictEqual(networks["wallaby-testnet"].symbol, "tFIL")
      assert.deepStrictEqual(networks["fantom-testnet"].tokens, {})
    })
  )

  describe("withLocalDeployment", () => {
    const usdc = Schema.decodeUnknownSync(Token)({ address: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512", decimals: 6 })
    const dai = Schema.decodeUnknownSync(Token)({ address: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0", decimals: 18 })

    it.effect("points localhost at the deployment and leaves every other chain alone", () =>
      Effect.gen(function* () {
        const table = withLocalDeployment({
          paymentContract: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
          usdc,
          dai
        })
        assert.deepStrictEqual<unknown>(table.localhost, {
          symbol: "ETH",
          rpc: "http://127.0.0.1:8545",
          scan: "",
          chainId: 31337,
          paymentContract: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
          tokens: { usdc, dai },
          nativeDecimals: 18
        })
        for (const name of specChains) assert.strictEqual(table[name], networks[name])
        assert.deepStrictEqual(networks.localhost.tokens, {}, "the default table is not mutated")
        assert.strictEqual(networks.localhost.paymentContract, "0x0000000000000000000000000000000000000000")
        const decoded = yield* Schema.decodeUnknownEffect(NetworkTable)(table)
        assert.deepStrictEqual(decoded, table)
      })
    )

    it.effect("an rpc given replaces the default local one", () =>
      Effect.sync(() => {
        const table = withLocalDeployment({ rpc: "http://127.0.0.1:9545", paymentContract: usdc.address })
        assert.strictEqual(table.localhost?.rpc, "http://127.0.0.1:9545")
        assert.deepStrictEqual(table.localhost?.tokens, {})
      })
    )

    it.effect("applies to a table given", () =>
      Effect.sync(() => {
        const only = { polygon: networks.polygon }
        const table = withLocalDeployment({ paymentContract: usdc.address }, only)
        assert.deepStrictEqual(Object.keys(table), ["polygon", "localhost"])
      })
    )

    it.effect("a bad contract address makes the table fail to decode", () =>
      Effect.gen(function* () {
        const table = withLocalDeployment({ paymentContract: "not-an-address" })
        const error = yield* Effect.flip(Schema.decodeUnknownEffect(NetworkTable)(table))
        assert.strictEqual(error._tag, "SchemaError")
      })
    )
  })
})
