/**
 * The Promise facade as a JavaScript caller meets it: every method of every service, called with
 * arbitrary JSON values (and undefined, null, functions) for each argument, either resolves or
 * rejects with one of the library's typed errors, never with a defect (a `TypeError`, a schema
 * failure while the error itself is built).
 */
import { type Context, Effect } from "effect"
import { isPlatformError } from "effect/PlatformError"
import fc from "fast-check"
import { type RunningMockNetwork, startMockNetwork } from "lighthouse-effect/mocks/node"
import { HttpResponse, http } from "msw"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AccessControl } from "../src/AccessControl.ts"
import { Auth } from "../src/Auth.ts"
import { Download } from "../src/Download.ts"
import * as Errors from "../src/Errors.ts"
import { Files } from "../src/Files.ts"
import { Ipns } from "../src/Ipns.ts"
import { KeyShards } from "../src/KeyShards.ts"
import * as LighthouseNode from "../src/LighthouseNode.ts"
import { networks } from "../src/Networks.ts"
import { createLighthouseNode } from "../src/node.ts"
import { Payment } from "../src/Payment.ts"
import { createLighthouse, type LighthouseClient } from "../src/promise.ts"
import { Upload } from "../src/Upload.ts"

const options = {
  // Concurrent key-node calls and short time-outs keep a few thousand calls in real time short.
  nodes: { mode: "concurrent" as const },
  requestTimeout: "2 seconds" as const
}

const tags = {
  auth: Auth,
  keyShards: KeyShards,
  accessControl: AccessControl,
  upload: Upload,
  download: Download,
  files: Files,
  ipns: Ipns,
  payment: Payment
}
type ServiceName = keyof typeof tags

const errorClasses = Object.values(Errors as Record<string, unknown>).filter(
  (value): value is new (...args: never) => Error =>
    typeof value === "function" && (value as { prototype?: unknown }).prototype instanceof Error
)

/** One of the library's typed errors: a catalogue class, or the file system's `PlatformError`. */
const isTyped = (u: unknown): boolean => errorClasses.some((C) => u instanceof C) || isPlatformError(u)

const describeValue = (u: unknown) => {
  try {
    return u instanceof Error ? `${u.constructor.name}: ${u.message}` : JSON.stringify(u)
  } catch {
    return String(u)
  }
}

const argument = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue() },
  fc.constant(undefined),
  fc.constant(null),
  fc.func(fc.jsonValue())
)
/** Objects with the keys the inputs use and arbitrary values, to get past the shape of the object. */
const fieldNames = [
  "address",
  "cid",
  "token",
  "keyShards",
  "shareTo",
  "conditions",
  "revokeTo",
  "newOwner",
  "apiKey",
  "name",
  "files",
  "size",
  "amount",
  "paths",
  "network",
  "keyName",
  "signature",
  "publicKey",
  "signedMessage",
  "refreshToken",
  "count",
  "dynamicData",
  "decrypt",
  "masterKey",
  "cidVersion",
  "mimeType",
  "chain",
  "aggregator",
  "chainType"
]
const leaf = fc.oneof(
  { weight: 3, arbitrary: fc.string() },
  fc.constantFrom("0x70997970c51812dc3a010c7d01b50e0d17dc79c8", "QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o"),
  fc.array(fc.oneof(fc.string(), fc.dictionary(fc.constantFrom("index", "key", "id", "chain"), fc.jsonValue()))),
  fc.jsonValue()
)
const nearlyRight = fc.dictionary(fc.constantFrom(...fieldNames), leaf)
const argumentLists = fc.array(fc.oneof(argument, nearlyRight), { maxLength: 4 })

/** Calls a facade method and waits for its outcome: a value, or what it rejected with. */
const outcome = async (call: () => unknown): Promise<{ ok: true } | { ok: false; error: unknown }> => {
  try {
    const result = call()
    if (result !== null && typeof result === "object" && Symbol.asyncIterator in result) {
      for await (const _ of result as AsyncIterable<unknown>) break
    } else await result
    return { ok: true }
  } catch (error) {
    return { ok: false, error }
  }
}

describe("Promise facade: every bad input is a typed failure", () => {
  let mock: RunningMockNetwork
  let lighthouse: LighthouseClient
  let methods: Record<ServiceName, ReadonlyArray<string>>
  beforeAll(async () => {
    mock = startMockNetwork({ onUnhandledFrame: "error" })
    // No chain here: every network's RPC endpoint fails as an unreachable host would.
    mock.server.use(
      ...Object.values(networks).map((network) => http.all(`${network.rpc}*`, () => HttpResponse.error()))
    )
    lighthouse = createLighthouseNode(options)
    // The methods are read from the services themselves, so a new one is covered without a change here.
    const services = Effect.forEach(Object.entries(tags), ([name, tag]) =>
      Effect.map(Effect.service(tag as unknown as Context.Key<unknown, object>), (service) => {
        const keys = Object.keys(service).filter(
          (key) => typeof (service as Record<string, unknown>)[key] === "function"
        )
        return [name, keys] as const
      })
    )
    const listed = services.pipe(Effect.provide(LighthouseNode.layer(options))) as unknown as Effect.Effect<
      ReadonlyArray<readonly [string, ReadonlyArray<string>]>
    >
    methods = Object.fromEntries(await Effect.runPromise(listed)) as Record<ServiceName, ReadonlyArray<string>>
  })
  afterAll(async () => {
    await lighthouse.dispose()
    mock.close()
  })

  it("covers the whole surface", () => {
    expect(Object.values(methods).flat().length).toBeGreaterThan(40)
  })

  it("payment.quotePaths reads paths through the client's file system (none in the browser client)", async () => {
    const missing = await lighthouse.payment.quotePaths({ paths: "/no/such/file" }).catch((e: unknown) => e)
    expect(isPlatformError(missing)).toBe(true)
    expect(missing).toMatchObject({ reason: { _tag: "NotFound" } })
    const browser = createLighthouse()
    const noFs = await browser.payment.quotePaths({ paths: "/no/such/file" }).catch((e: unknown) => e)
    expect(isPlatformError(noFs)).toBe(true)
    await browser.dispose()
  })

  for (const service of Object.keys(tags) as ReadonlyArray<ServiceName>) {
    it(`${service}: arbitrary arguments resolve or reject with a typed error`, { timeout: 120_000 }, async () => {
      for (const method of methods[service]) {
        await fc.assert(
          fc.asyncProperty(argumentLists, async (args) => {
            const facade = lighthouse[service] as unknown as Record<string, (...a: ReadonlyArray<unknown>) => unknown>
            const result = await outcome(() => facade[method]!(...args))
            if (!result.ok && !isTyped(result.error)) {
              throw new Error(`${service}.${method} rejected with ${describeValue(result.error)}`)
            }
          }),
          { numRuns: 25 }
        )
      }
    })
  }
})
