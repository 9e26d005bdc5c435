/**
 * Environment configuration with the all-in-one layers: their `layerConfig` reads the `Config`s the
 * caller gives over `LIGHTHOUSE_*` (here the process environment itself, set before the first read)
 * and every request goes to the hosts they name; a standalone `LighthouseConfig` layer built with
 * an all-in-one layer, which used to send everything to the production hosts without a word, fails
 * the build with `ConfigConflict`: once, before any request leaves.
 */
import { assert, describe, it } from "@effect/vitest"
import { Config, ConfigProvider, Duration, Effect, Layer } from "effect"
import { Errors, Lighthouse, LighthouseConfig, LighthouseStorage } from "lighthouse-effect"
import * as LighthouseNode from "lighthouse-effect/node"
import { afterAll, beforeAll } from "vitest"
import { hostsNamed, originsOf, production, reachEveryHost, serveNetworks } from "./networks.ts"

const fromEnvironment = hostsNamed("env")
const explicit = hostsNamed("explicit")
const { sent, origins } = serveNetworks([production, fromEnvironment, explicit])

const variables: Record<string, string> = {
  LIGHTHOUSE_API_URL: fromEnvironment.api,
  LIGHTHOUSE_NODE_URL: fromEnvironment.node,
  LIGHTHOUSE_GATEWAY_URL: fromEnvironment.gateway,
  LIGHTHOUSE_ENCRYPTION_URL: fromEnvironment.encryption,
  LIGHTHOUSE_WALRUS_NODE_URL: fromEnvironment.walrusNode,
  LIGHTHOUSE_WALRUS_GATEWAY_URL: fromEnvironment.walrusGateway,
  LIGHTHOUSE_REQUEST_TIMEOUT_MS: "4321",
  LIGHTHOUSE_NODE_POLICY: "concurrent"
}

// Set before any test reads a `Config`: Effect's default `ConfigProvider` reads `process.env` once.
const saved = new Map<string, string | undefined>()
beforeAll(() => {
  for (const [name, value] of Object.entries(variables)) {
    saved.set(name, process.env[name])
    process.env[name] = value
  }
})
afterAll(() => {
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
})

const configForms = [
  ["LighthouseNode.layerConfig()", () => LighthouseNode.layerConfig()],
  ["Lighthouse.layerConfig()", () => Lighthouse.layerConfig()],
  ["LighthouseStorage.layerConfig()", () => LighthouseStorage.layerConfig()]
] as const

describe("the all-in-one layers configured from LIGHTHOUSE_* variables", () => {
  it.effect.each(configForms)("%s sends every request to the hosts the variables name", ([, make]) =>
    Effect.gen(function* () {
      const read = yield* reachEveryHost
      assert.deepStrictEqual(origins(), originsOf(fromEnvironment))
      assert.strictEqual(read.text, "hello hosts\n")
      assert.strictEqual(read.walrus, "hello walrus\n")
      const config = yield* LighthouseConfig.LighthouseConfig
      assert.strictEqual(Duration.toMillis(config.requestTimeout), 4321)
      assert.strictEqual(config.nodes.mode, "concurrent")
      assert.strictEqual(Duration.toMillis(config.transferTimeout), 7_200_000)
    }).pipe(Effect.provide(make()))
  )

  it.effect("explicit options win over the variables, host by host; the variables over the defaults", () =>
    Effect.gen(function* () {
      yield* reachEveryHost
      const reached = new Map(sent.map((request) => [request.origin, request.path]))
      assert.deepStrictEqual(
        origins(),
        [
          fromEnvironment.api,
          explicit.gateway,
          fromEnvironment.encryption,
          explicit.node,
          fromEnvironment.walrusGateway,
          fromEnvironment.walrusNode
        ]
          .map((host) => new URL(host).origin)
          .sort()
      )
      assert.strictEqual(reached.get(explicit.node), "/api/v0/add")
      const config = yield* LighthouseConfig.LighthouseConfig
      assert.strictEqual(Duration.toMillis(config.requestTimeout), 1000)
      assert.strictEqual(config.nodes.mode, "concurrent")
      assert.strictEqual(Duration.toMillis(config.nodes.pause), 1000)
    }).pipe(
      Effect.provide(
        LighthouseNode.layerConfig({
          hosts: Config.succeed({ node: explicit.node, gateway: explicit.gateway }),
          requestTimeout: Config.succeed(1000)
        })
      )
    )
  )

  it.effect("the caller chooses the Config of an option: its own variables, under which LIGHTHOUSE_* stay", () =>
    Effect.gen(function* () {
      yield* reachEveryHost
      const reached = new Map(sent.map((request) => [request.origin, request.path]))
      assert.strictEqual(reached.get(new URL(explicit.node).origin), "/api/v0/add")
      assert.deepStrictEqual(
        origins(),
        originsOf({ ...fromEnvironment, node: explicit.node, gateway: explicit.gateway })
      )
      const config = yield* LighthouseConfig.LighthouseConfig
      assert.strictEqual(Duration.toMillis(config.transferTimeout), 60_000)
      assert.strictEqual(Duration.toMillis(config.requestTimeout), 4321)
    }).pipe(
      Effect.provide(
        Lighthouse.layerConfig({
          hosts: Config.all({ node: Config.String("MY_UPLOAD_NODE"), gateway: Config.String("MY_GATEWAY") }),
          transferTimeout: Config.map(Config.Int("MY_TRANSFER_SECONDS"), (seconds) => Duration.seconds(seconds))
        }).pipe(
          Layer.provide(
            ConfigProvider.layer(
              ConfigProvider.fromEnv({
                env: {
                  ...variables,
                  MY_UPLOAD_NODE: explicit.node,
                  MY_GATEWAY: explicit.gateway,
                  MY_TRANSFER_SECONDS: "60"
                }
              })
            )
          )
        )
      )
    )
  )

  it.effect("a ConfigProvider in context replaces the process environment", () =>
    Effect.gen(function* () {
      yield* reachEveryHost
      assert.deepStrictEqual(origins(), originsOf(explicit))
    }).pipe(
      Effect.provide(
        LighthouseNode.layerConfig().pipe(
          Layer.provide(
            ConfigProvider.layer(
              ConfigProvider.fromEnv({
                env: {
                  LIGHTHOUSE_API_URL: explicit.api,
                  LIGHTHOUSE_NODE_URL: explicit.node,
                  LIGHTHOUSE_GATEWAY_URL: explicit.gateway,
                  LIGHTHOUSE_ENCRYPTION_URL: explicit.encryption,
                  LIGHTHOUSE_WALRUS_NODE_URL: explicit.walrusNode,
                  LIGHTHOUSE_WALRUS_GATEWAY_URL: explicit.walrusGateway
                }
              })
            )
          )
        )
      )
    )
  )

  it.effect("a variable set to a wrong value fails the layer with a ConfigError naming it, before any request", () =>
    Effect.gen(function* () {
      const error = yield* reachEveryHost.pipe(
        Effect.provide(
          LighthouseNode.layerConfig().pipe(
            Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { LIGHTHOUSE_NODE_POLICY: "parallel" } })))
          )
        ),
        Effect.flip
      )
      assert.strictEqual(error._tag, "ConfigError")
      assert.strictEqual(
        error.message,
        `SchemaError(Expected "sequential" | "concurrent"\n  at ["LIGHTHOUSE_NODE_POLICY"])`
      )
      assert.deepStrictEqual(sent, [])
    })
  )

  it.effect("the plain layers do not read the variables: LighthouseNode.layer() is the production hosts", () =>
    Effect.gen(function* () {
      yield* reachEveryHost
      assert.deepStrictEqual(origins(), originsOf(production))
    }).pipe(Effect.provide(LighthouseNode.layer()))
  )
})

describe("a standalone LighthouseConfig built with an all-in-one layer fails the build with ConfigConflict", () => {
  const conflictText =
    "A LighthouseConfig from LighthouseConfig.layer or LighthouseConfig.layerConfig meets an all-in-one layer " +
    "(layer or layerConfig of Lighthouse, LighthouseStorage or lighthouse-effect/node), which brings its own " +
    "configuration and would ignore it. Give the options to the all-in-one layer's layer, or the Configs to its " +
    "layerConfig; read the configuration back from the all-in-one layer, which provides LighthouseConfig."

  type Standalone = Layer.Layer<LighthouseConfig.LighthouseConfig, unknown>
  type AllInOne = Layer.Layer<LighthouseStorage.Services, unknown>
  type Program = Effect.Effect<unknown, unknown, LighthouseStorage.Services>

  const standalone = [
    ["LighthouseConfig.layerConfig", () => LighthouseConfig.layerConfig],
    ["LighthouseConfig.layer({ hosts })", () => LighthouseConfig.layer({ hosts: fromEnvironment })]
  ] as const
  const allInOne = [
    ["LighthouseNode.layer()", () => LighthouseNode.layer()],
    ["LighthouseNode.layerConfig()", () => LighthouseNode.layerConfig()],
    ["Lighthouse.layer()", () => Lighthouse.layer()],
    ["Lighthouse.layerConfig()", () => Lighthouse.layerConfig()],
    ["LighthouseStorage.layer()", () => LighthouseStorage.layer()],
    ["LighthouseStorage.layerConfig()", () => LighthouseStorage.layerConfig()]
  ] as const
  const combinations = [
    [
      "Layer.provide(standalone) to the all-in-one layer",
      (config: Standalone, all: AllInOne) => (program: Program) =>
        Effect.provide(program, all.pipe(Layer.provide(config)))
    ],
    [
      "Layer.provide(all-in-one) to the standalone layer",
      (config: Standalone, all: AllInOne) => (program: Program) =>
        Effect.provide(program, Layer.merge(all, config.pipe(Layer.provide(all))))
    ],
    [
      "Effect.provide(all-in-one), then Effect.provide(standalone) around it",
      (config: Standalone, all: AllInOne) => (program: Program) =>
        program.pipe(Effect.provide(all), Effect.provide(config))
    ],
    [
      "Effect.provide(standalone), then Effect.provide(all-in-one) around it",
      (config: Standalone, all: AllInOne) => (program: Program) =>
        program.pipe(Effect.provide(config), Effect.provide(all))
    ],
    [
      "Layer.merge(standalone, all-in-one)",
      (config: Standalone, all: AllInOne) => (program: Program) => Effect.provide(program, Layer.merge(config, all))
    ],
    [
      "Layer.merge(all-in-one, standalone)",
      (config: Standalone, all: AllInOne) => (program: Program) => Effect.provide(program, Layer.merge(all, config))
    ],
    [
      "Effect.provide([all-in-one, standalone])",
      (config: Standalone, all: AllInOne) => (program: Program) => Effect.provide(program, [all, config])
    ]
  ] as const
  const cases = combinations.flatMap(([how, combine]) =>
    standalone.flatMap(([configName, config]) =>
      allInOne.map(
        ([allName, all]) => [`${how}: ${configName} with ${allName}`, () => combine(config(), all())] as const
      )
    )
  )

  it.effect.each(cases)("%s", ([, provide]) =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(provide()(reachEveryHost))
      assert.instanceOf(error, Errors.ConfigConflict)
      assert.strictEqual((error as Errors.ConfigConflict).message, conflictText)
      assert.deepStrictEqual(sent, [])
    })
  )

  it.effect("found when the layers are built: a program that makes no request fails the same", () =>
    Effect.gen(function* () {
      let ran = false
      const error = yield* Effect.flip(
        Effect.sync(() => {
          ran = true
        }).pipe(Effect.provide(Layer.merge(LighthouseConfig.layer(), Lighthouse.layer())))
      )
      assert.instanceOf(error, Errors.ConfigConflict)
      assert.isFalse(ran)
    })
  )

  it.effect("no conflict: a standalone composition and an all-in-one layer provided to two parts of a program", () =>
    Effect.gen(function* () {
      const [apart, allInOneConfig] = yield* Effect.all([
        Effect.service(LighthouseConfig.LighthouseConfig).pipe(
          Effect.provide(LighthouseConfig.layer({ hosts: explicit }))
        ),
        Effect.service(LighthouseConfig.LighthouseConfig).pipe(Effect.provide(LighthouseStorage.layer()))
      ])
      assert.strictEqual(apart.hosts.api, explicit.api)
      assert.strictEqual(allInOneConfig.hosts.api, LighthouseConfig.DefaultHosts.api)
    })
  )
})
