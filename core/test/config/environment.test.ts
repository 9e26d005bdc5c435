/**
 * Environment configuration with the all-in-one layers: the `…Config` forms read `LIGHTHOUSE_*`
 * (here the process environment itself, set before the first read) and every request goes to the
 * hosts they name; combining a standalone `LighthouseConfig` layer with an all-in-one layer, which
 * used to send everything to the production hosts without a word, dies with `ConfigConflict`
 * before any request leaves.
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeFileSystem, NodeHttpClient } from "@effect/platform-node"
import { ConfigProvider, Duration, Effect, type FileSystem, Layer } from "effect"
import { afterAll, beforeAll } from "vitest"
import * as Lighthouse from "../../src/Lighthouse.ts"
import * as LighthouseConfig from "../../src/LighthouseConfig.ts"
import * as LighthouseStorage from "../../src/LighthouseStorage.ts"
import { layerNode, layerNodeConfig } from "../../src/LighthouseNode.ts"
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

const withFiles = <A, E>(layer: Layer.Layer<A, E, FileSystem.FileSystem>) =>
  layer.pipe(Layer.provide(NodeFileSystem.layer))

const configForms = [
  ["layerNodeConfig()", () => layerNodeConfig()],
  ["Lighthouse.layerConfig()", () => withFiles(Lighthouse.layerConfig())],
  ["Lighthouse.layerBrowserConfig()", () => Lighthouse.layerBrowserConfig()],
  [
    "Lighthouse.layerNoDepsConfig()",
    () => Lighthouse.layerNoDepsConfig().pipe(Layer.provide([NodeFileSystem.layer, NodeHttpClient.layerNodeHttp]))
  ]
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
        layerNodeConfig({ hosts: { node: explicit.node, gateway: explicit.gateway }, requestTimeout: 1000 })
      )
    )
  )

  it.effect("a ConfigProvider in context replaces the process environment", () =>
    Effect.gen(function* () {
      yield* reachEveryHost
      assert.deepStrictEqual(origins(), originsOf(explicit))
    }).pipe(
      Effect.provide(
        layerNodeConfig().pipe(
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
          layerNodeConfig().pipe(
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

  it.effect("the plain layers do not read the variables: layerNode() is the production hosts", () =>
    Effect.gen(function* () {
      yield* reachEveryHost
      assert.deepStrictEqual(origins(), originsOf(production))
    }).pipe(Effect.provide(layerNode()))
  )
})

describe("a standalone LighthouseConfig beside an all-in-one layer dies with ConfigConflict", () => {
  /** Runs `reachEveryHost` the way `provide` says and returns the defect it dies with. */
  const conflictOf = (provide: (program: typeof reachEveryHost) => Effect.Effect<unknown, unknown>) =>
    provide(reachEveryHost).pipe(
      Effect.andThen(Effect.fail("no defect" as const)),
      Effect.catchDefect((defect) => Effect.succeed(defect))
    )

  const standalone = [
    ["LighthouseConfig.layerConfig", () => LighthouseConfig.layerConfig],
    ["LighthouseConfig.layer({ hosts })", () => LighthouseConfig.layer({ hosts: fromEnvironment })]
  ] as const
  const allInOne = [
    ["layerNode()", () => layerNode()],
    ["Lighthouse.layerBrowser()", () => Lighthouse.layerBrowser()],
    ["LighthouseStorage.layerBrowser()", () => LighthouseStorage.layerBrowser()],
    ["Lighthouse.layer()", () => withFiles(Lighthouse.layer())]
  ] as const
  const combinations = [
    [
      "Layer.provide(standalone) to the all-in-one layer",
      (config: Layer.Layer<LighthouseConfig.LighthouseConfig, unknown>, all: Layer.Layer<LighthouseStorage.Services>) =>
        (program: typeof reachEveryHost) =>
          Effect.provide(program, all.pipe(Layer.provide(config)))
    ],
    [
      "Effect.provide(all-in-one), then Effect.provide(standalone) around it",
      (config: Layer.Layer<LighthouseConfig.LighthouseConfig, unknown>, all: Layer.Layer<LighthouseStorage.Services>) =>
        (program: typeof reachEveryHost) =>
          program.pipe(Effect.provide(all), Effect.provide(config))
    ],
    [
      "Layer.merge(standalone, all-in-one)",
      (config: Layer.Layer<LighthouseConfig.LighthouseConfig, unknown>, all: Layer.Layer<LighthouseStorage.Services>) =>
        (program: typeof reachEveryHost) =>
          Effect.provide(program, Layer.merge(config, all))
    ],
    [
      "Effect.provide([all-in-one, standalone])",
      (config: Layer.Layer<LighthouseConfig.LighthouseConfig, unknown>, all: Layer.Layer<LighthouseStorage.Services>) =>
        (program: typeof reachEveryHost) =>
          Effect.provide(program, [all, config])
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
      const defect = yield* conflictOf(provide())
      assert.instanceOf(defect, Lighthouse.ConfigConflict)
      assert.strictEqual(
        (defect as Lighthouse.ConfigConflict).message,
        "A LighthouseConfig from LighthouseConfig.layer / LighthouseConfig.layerConfig is in the context of an all-in-one " +
          "layer (Lighthouse.layer, layerBrowser, layerNoDeps, layerNode, LighthouseStorage.layerBrowser), which brings its own configuration and would " +
          "ignore it. Give the options to the all-in-one layer instead, or use its Config form (Lighthouse.layerConfig, " +
          "layerBrowserConfig, layerNoDepsConfig, layerNodeConfig, LighthouseStorage.layerBrowserConfig) to read LIGHTHOUSE_* variables; read the configuration " +
          "back from the all-in-one layer, which provides LighthouseConfig."
      )
      assert.deepStrictEqual(sent, [])
    })
  )
})
