/**
 * The fetch-based layer (browsers, workers) sends only the headers the provider's hosts allow: no
 * tracing headers, which would make a browser preflight every cross-origin call (and fail it: the
 * hosts' `Access-Control-Allow-Headers` does not list them).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Files from "../src/Files.ts"
import * as Lighthouse from "../src/Lighthouse.ts"

describe("Lighthouse.layer", () => {
  it.effect("sends no traceparent or b3 header", () =>
    Effect.gen(function* () {
      const seen: Array<Headers> = []
      const original = globalThis.fetch
      globalThis.fetch = async (input, init) => {
        seen.push(new Request(input, init).headers)
        return Response.json({ dataLimit: 1, dataUsed: 0 })
      }
      yield* Effect.addFinalizer(() => Effect.sync(() => (globalThis.fetch = original)))
      yield* Files.Files.use((files) => files.usage("an-api-key")).pipe(
        Effect.provide(Lighthouse.layer({ hosts: { api: "http://127.0.0.1:1" } })),
        Effect.ignore
      )
      assert.strictEqual(seen.length, 1)
      assert.deepStrictEqual([...seen[0]!.keys()].sort(), ["authorization"])
    }).pipe(Effect.scoped)
  )
})
