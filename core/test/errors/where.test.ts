/**
 * Failures say where and why, through the public API: a request to a closed local port is
 * `Network error` naming its method, URL and `connect ECONNREFUSED`; a status error names its
 * request and the server's text; each request and its answer's status are logged at debug level;
 * a host that is no URL is a `ConfigError` when the layer is built, not a `Network error` later.
 */

import { createServer } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Config, ConfigProvider, Effect, Exit, Layer, Logger, References } from "effect"
import { Errors, Files, Lighthouse, LighthouseConfig, Upload } from "lighthouse-effect"
import { startMockNetwork } from "lighthouse-effect/mocks/node"
import * as LighthouseNode from "lighthouse-effect/node"
import { afterAll, beforeAll } from "vitest"

/** A loopback port nothing listens on: bound, then closed. */
const closedPort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      if (address === null || typeof address === "string") return reject(new Error("no port"))
      server.close(() => resolve(address.port))
    })
  })

/** Every host on `base`. */
const allOn = (base: string) => ({
  api: base,
  node: base,
  gateway: base,
  encryption: base,
  walrusNode: base,
  walrusGateway: base
})

/** The lines logged while `effect` runs at debug level. */
const loggedLines = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const lines: Array<string> = []
    const capture = Logger.make(({ message, logLevel }) => {
      const text = Array.isArray(message) ? message.map(String).join(" ") : String(message)
      lines.push(`${logLevel} ${text}`)
    })
    const exit = yield* effect.pipe(
      Effect.provide(Logger.layer([capture])),
      Effect.provideService(References.MinimumLogLevel, "Debug"),
      Effect.exit
    )
    return { exit, lines }
  })

describe("no answer: where and why", () => {
  let port: number
  let base: string
  beforeAll(async () => {
    port = await closedPort()
    base = `http://127.0.0.1:${port}`
  })

  it.effect("GET to a closed port: Network error naming GET, the URL and connect ECONNREFUSED", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Files.Files.use((files) => files.usage("a-key")))
      assert.strictEqual(error._tag, "NetworkError")
      if (error._tag !== "NetworkError") return
      assert.strictEqual(error.message, "Network error")
      assert.strictEqual(error.method, "GET")
      assert.strictEqual(error.url, `${base}/api/user/user_data_usage`)
      assert.strictEqual(error.reason, "connect ECONNREFUSED")
      assert.strictEqual(
        Errors.describe(error),
        `Network error (GET http://127.0.0.1:${port}/api/user/user_data_usage: connect ECONNREFUSED)`
      )
    }).pipe(Effect.provide(Layer.suspend(() => LighthouseNode.layer({ hosts: allOn(base) }))))
  )

  it.effect("POST of an upload to a closed port: Network error naming POST /api/v0/add", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Upload.Upload.use((upload) => upload.text("hello", { apiKey: "a-key" })))
      assert.strictEqual(error.message, "Network error")
      assert.strictEqual(
        Errors.describe(error),
        `Network error (POST http://127.0.0.1:${port}/api/v0/add?wrap-with-directory=false&cid-version=1&raw-leaves=true&chunker=size-262144&max-file-links=174&trickle=false: connect ECONNREFUSED)`
      )
    }).pipe(Effect.provide(Layer.suspend(() => LighthouseNode.layer({ hosts: allOn(base) }))))
  )

  it.effect("credentials in a host's URL never reach the error", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Files.Files.use((files) => files.usage("a-key")))
      assert.strictEqual(error._tag, "NetworkError")
      if (error._tag !== "NetworkError") return
      assert.strictEqual(error.url, `http://<redacted>@127.0.0.1:${port}/api/user/user_data_usage`)
      for (const text of [Errors.describe(error), JSON.stringify(error), String(error), error.reason]) {
        assert.notInclude(text, "hunter2-secret")
      }
    }).pipe(
      Effect.provide(
        Layer.suspend(() => LighthouseNode.layer({ hosts: allOn(`http://me:hunter2-secret@127.0.0.1:${port}`) }))
      )
    )
  )

  it.effect("--log-level debug: the request is logged, and that it failed", () =>
    Effect.gen(function* () {
      const { exit, lines } = yield* loggedLines(Files.Files.use((files) => files.usage("a-key")))
      assert.isTrue(Exit.isFailure(exit))
      assert.deepStrictEqual(lines, [
        `Debug HTTP GET ${base}/api/user/user_data_usage`,
        `Debug HTTP GET ${base}/api/user/user_data_usage failed`
      ])
    }).pipe(Effect.provide(Layer.suspend(() => LighthouseNode.layer({ hosts: allOn(base) }))))
  )
})

describe("an answer: its status logged, a refusal named", () => {
  const hosts = {
    api: "http://api.where.test",
    node: "http://node.where.test",
    gateway: "http://gateway.where.test",
    encryption: "http://encryption.where.test",
    walrusNode: "http://walrus-node.where.test",
    walrusGateway: "http://walrus-gateway.where.test"
  }
  let running: ReturnType<typeof startMockNetwork>
  let apiKey: string
  beforeAll(() => {
    running = startMockNetwork({ hosts, onUnhandledFrame: "error" })
    apiKey = running.network.seedAccount("0x00000000000000000000000000000000000000aa", { dataLimit: 1024 }).apiKey
  })
  afterAll(() => running.close())
  const live = Layer.suspend(() => LighthouseNode.layer({ hosts }))

  it.effect("each request and its answer's status, at debug level only", () =>
    Effect.gen(function* () {
      const { exit, lines } = yield* loggedLines(Files.Files.use((files) => files.usage(apiKey)))
      assert.isTrue(Exit.isSuccess(exit))
      assert.deepStrictEqual(lines, [
        "Debug HTTP GET http://api.where.test/api/user/user_data_usage",
        "Debug HTTP GET http://api.where.test/api/user/user_data_usage answered 200"
      ])
    }).pipe(Effect.provide(live))
  )

  it.effect("a refused key: the catalogue's text, then the request and the server's own words", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Files.Files.use((files) => files.usage("not-a-key")))
      assert.strictEqual(error.message, "Request failed with status code 401")
      assert.strictEqual(
        Errors.describe(error),
        "Request failed with status code 401 (GET http://api.where.test/api/user/user_data_usage: Authentication failed)"
      )
    }).pipe(Effect.provide(live))
  )
})

describe("a host that is no URL: a ConfigError when the layer is built", () => {
  const provided = (env: Record<string, string>) => ConfigProvider.layer(ConfigProvider.fromEnv({ env }))
  const usage = Files.Files.use((files) => files.usage("a-key"))

  it.effect.each([
    ["LIGHTHOUSE_API_URL", "not-a-url"],
    ["LIGHTHOUSE_NODE_URL", "ftp://upload.example"],
    ["LIGHTHOUSE_GATEWAY_URL", "gateway.example"],
    ["LIGHTHOUSE_ENCRYPTION_URL", "mailto:keys@example.com"],
    ["LIGHTHOUSE_WALRUS_NODE_URL", "http//missing-colon"],
    ["LIGHTHOUSE_WALRUS_GATEWAY_URL", "/relative"]
  ] as const)("%s=%j: LighthouseNode.layerConfig fails naming the variable", ([name, value]) =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        usage.pipe(Effect.provide(LighthouseNode.layerConfig().pipe(Layer.provide(provided({ [name]: value })))))
      )
      assert.strictEqual(error._tag, "ConfigError")
      assert.strictEqual(
        error.message,
        `SchemaError(Expected an http:// or https:// URL, got ${JSON.stringify(value)}\n  at ["${name}"])`
      )
    })
  )

  it.effect("the same through LighthouseConfig.layerConfig and Lighthouse.layerConfig", () =>
    Effect.gen(function* () {
      const env = provided({ LIGHTHOUSE_API_URL: "not-a-url" })
      const standalone = yield* Effect.flip(
        Effect.gen(function* () {
          return yield* LighthouseConfig.LighthouseConfig
        }).pipe(Effect.provide(LighthouseConfig.layerConfig.pipe(Layer.provide(env))))
      )
      assert.strictEqual(standalone._tag, "ConfigError")
      const allInOne = yield* Effect.flip(usage.pipe(Effect.provide(Lighthouse.layerConfig().pipe(Layer.provide(env)))))
      assert.strictEqual(allInOne._tag, "ConfigError")
    })
  )

  it.effect("options given in code: LighthouseConfig.layer and the …Config layers fail naming the field", () =>
    Effect.gen(function* () {
      const standalone = yield* Effect.flip(
        Effect.gen(function* () {
          return yield* LighthouseConfig.LighthouseConfig
        }).pipe(Effect.provide(LighthouseConfig.layer({ hosts: { gateway: "gateway.example" } })))
      )
      assert.strictEqual(
        standalone.message,
        `SchemaError(Expected an http:// or https:// URL, got "gateway.example"\n  at ["hosts"]["gateway"])`
      )
      const sources = yield* Effect.flip(
        Effect.gen(function* () {
          return yield* LighthouseConfig.LighthouseConfig
        }).pipe(Effect.provide(LighthouseConfig.layer({ downloads: { sources: ["public", "ipfs.io"] } })))
      )
      assert.include(sources.message, `at ["downloads"]["sources"][1]`)
      const merged = yield* Effect.flip(
        usage.pipe(
          Effect.provide(
            LighthouseNode.layerConfig({ hosts: Config.succeed({ api: "not-a-url" }) }).pipe(
              Layer.provide(provided({}))
            )
          )
        )
      )
      assert.strictEqual(merged._tag, "ConfigError")
    })
  )

  it.effect("an all-in-one layer given one in code dies with the ConfigError as it is built, before any request", () =>
    Effect.gen(function* () {
      const exit = yield* usage.pipe(
        Effect.provide(Layer.suspend(() => LighthouseNode.layer({ hosts: { api: "not-a-url" } }))),
        Effect.exit
      )
      assert.isTrue(Exit.isFailure(exit))
      if (!Exit.isFailure(exit)) return
      const defect = exit.cause.reasons.find((reason) => reason._tag === "Die")
      assert.strictEqual((defect as { defect: { _tag: string } } | undefined)?.defect._tag, "ConfigError")
    })
  )

  it.effect("every valid host is kept to the letter", () =>
    Effect.gen(function* () {
      const config = yield* Effect.gen(function* () {
        return yield* LighthouseConfig.LighthouseConfig
      }).pipe(
        Effect.provide(
          LighthouseConfig.layerConfig.pipe(
            Layer.provide(
              provided({
                LIGHTHOUSE_API_URL: "http://127.0.0.1:8731",
                LIGHTHOUSE_NODE_URL: "https://n.example/prefix/"
              })
            )
          )
        )
      )
      assert.strictEqual(config.hosts.api, "http://127.0.0.1:8731")
      assert.strictEqual(config.hosts.node, "https://n.example/prefix/")
    })
  )
})
