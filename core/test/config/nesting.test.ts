/**
 * An all-in-one layer provided inside a program that already has one applies its own options:
 * layers are shared by reference, and the services inside (`Upload.layer`, …) are the same values
 * in both, so the inner layer used to reuse the outer services and their hosts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Auth from "../../src/Auth.ts"
import * as Files from "../../src/Files.ts"
import * as Lighthouse from "../../src/Lighthouse.ts"
import * as LighthouseConfig from "../../src/LighthouseConfig.ts"
import * as LighthouseNode from "../../src/LighthouseNode.ts"
import * as LighthouseNodeStorage from "../../src/LighthouseNodeStorage.ts"
import * as LighthouseStorage from "../../src/LighthouseStorage.ts"
import * as Signer from "../../src/Signer.ts"
import { alice } from "../support/accounts.ts"
import { apiKey, hostsNamed, originsOf, reachEveryHost, serveNetworks } from "./networks.ts"

const first = hostsNamed("first")
const second = hostsNamed("second")
const { sent, origins } = serveNetworks([first, second])

const all = [
  ["LighthouseNode.layer", (options: Lighthouse.Options) => LighthouseNode.layer(options)],
  ["LighthouseNode.layerStorage", (options: Lighthouse.Options) => LighthouseNodeStorage.layerStorage(options)],
  ["Lighthouse.layer", (options: Lighthouse.Options) => Lighthouse.layer(options)],
  ["LighthouseStorage.layer", (options: Lighthouse.Options) => LighthouseStorage.layer(options)]
] as const

/** The origins reached since `from` (an index into the log), each once, sorted. */
const originsSince = (from: number) => [...new Set(sent.slice(from).map((request) => request.origin))].sort()

describe("an all-in-one layer nested in another", () => {
  it.effect.each(all)("%s: the inner layer's hosts inside, the outer layer's again after", ([, make]) =>
    Effect.gen(function* () {
      yield* reachEveryHost
      assert.deepStrictEqual(origins(), originsOf(first))
      const before = sent.length
      const inner = yield* reachEveryHost.pipe(
        Effect.andThen(LighthouseConfig.LighthouseConfig),
        Effect.provide(make({ hosts: second }))
      )
      assert.deepStrictEqual(inner.hosts, { ...second })
      assert.deepStrictEqual(originsSince(before), originsOf(second))
      const after = sent.length
      yield* reachEveryHost
      assert.deepStrictEqual(originsSince(after), originsOf(first))
      assert.deepStrictEqual((yield* LighthouseConfig.LighthouseConfig).hosts, { ...first })
    }).pipe(Effect.provide(make({ hosts: first })))
  )

  it.effect("services taken from both layers, used in turn, each reach their own hosts", () =>
    Effect.gen(function* () {
      const outer = yield* Files.Files
      const inner = yield* Effect.service(Files.Files).pipe(Effect.provide(LighthouseNode.layer({ hosts: second })))
      yield* inner.usage(apiKey)
      yield* outer.usage(apiKey)
      yield* inner.usage(apiKey)
      assert.deepStrictEqual(
        sent.map((request) => request.origin),
        [second.api, first.api, second.api]
      )
    }).pipe(Effect.provide(LighthouseNode.layer({ hosts: first })))
  )

  it.effect("only the hosts given change: the inner layer's other options are its own, not the outer's", () =>
    Effect.gen(function* () {
      const inner = yield* Effect.service(LighthouseConfig.LighthouseConfig).pipe(
        Effect.provide(LighthouseNode.layer({ hosts: second }))
      )
      assert.strictEqual(inner.nodes.mode, "sequential")
      assert.strictEqual((yield* LighthouseConfig.LighthouseConfig).nodes.mode, "concurrent")
    }).pipe(Effect.provide(LighthouseNode.layer({ hosts: first, nodes: { mode: "concurrent" } })))
  )
})

describe("one layer value provided twice is one client; two calls are two", () => {
  const signer = Signer.makeFromAccount(alice)
  /** The key-node requests of a sign-in through the `Auth` in context (none when its cache holds a token). */
  const signIn = Effect.gen(function* () {
    const before = sent.length
    yield* (yield* Auth.Auth).token(signer)
    return sent.slice(before).map((request) => `${request.method} ${request.path}`)
  })
  const fullSignIn = [`GET /api/message/${signer.address.toLowerCase()}`, "POST /api/message/get-jwt"]

  it.effect("the same value nested: the inner program shares the outer JWT cache", () => {
    const live = LighthouseNode.layer({ hosts: first })
    return Effect.gen(function* () {
      assert.deepStrictEqual(yield* signIn, fullSignIn)
      assert.deepStrictEqual(yield* signIn.pipe(Effect.provide(live)), [])
    }).pipe(Effect.provide(live))
  })

  it.effect("two calls with the same options: two clients, each signs in", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* signIn, fullSignIn)
      assert.deepStrictEqual(yield* signIn.pipe(Effect.provide(LighthouseNode.layer({ hosts: first }))), fullSignIn)
    }).pipe(Effect.provide(LighthouseNode.layer({ hosts: first })))
  )
})
