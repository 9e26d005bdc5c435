/**
 * Reading the node's answers: one object, an array, NDJSON; refusals with an `error` text.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Response from "../../src/upload/Response.ts"

const A = { Name: "a", Hash: "QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o", Size: "20" } as Response.UploadedEntry
const B = {
  Name: "",
  Hash: "bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4",
  Size: "12"
} as Response.UploadedEntry

describe("Response", () => {
  it.effect("entries: an object, an array, NDJSON (blank lines skipped)", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* Response.entries(JSON.stringify(A), "u"), [A])
      assert.deepStrictEqual(yield* Response.entries(JSON.stringify([A, B]), "u"), [A, B])
      assert.deepStrictEqual(yield* Response.entries(`${JSON.stringify(A)}\n\n${JSON.stringify(B)}\n`, "u"), [A, B])
    })
  )

  it.effect("entries: not JSON, empty, or not the promised shape is InvalidResponse", () =>
    Effect.gen(function* () {
      const notJson = yield* Effect.flip(Response.entries("<html>", "https://n/add"))
      assert.strictEqual(notJson.message, "Invalid response from https://n/add: the node's answer is not JSON")
      assert.strictEqual((yield* Effect.flip(Response.entries("  ", "u")))._tag, "InvalidResponse")
      assert.strictEqual((yield* Effect.flip(Response.entries("[]", "u")))._tag, "InvalidResponse")
      const badCid = yield* Effect.flip(Response.entries(JSON.stringify({ ...A, Hash: "nope" }), "u"))
      assert.strictEqual(badCid._tag, "InvalidResponse")
      const numberSize = yield* Effect.flip(Response.entries(JSON.stringify({ ...A, Size: 20 }), "u"))
      assert.strictEqual(numberSize._tag, "InvalidResponse")
    })
  )

  it.effect("carRoots: kubo's root objects", () =>
    Effect.gen(function* () {
      const root: Response.CarRoot = { Root: { Cid: { "/": A.Hash }, PinErrorMsg: "" } }
      assert.deepStrictEqual(yield* Response.carRoots(JSON.stringify(root), "u"), [root])
      assert.strictEqual(
        (yield* Effect.flip(Response.carRoots(JSON.stringify({ Root: {} }), "u")))._tag,
        "InvalidResponse"
      )
    })
  )

  it("rejection: the `error` text as UploadRejected, else nothing", () => {
    const rejected = Response.rejection(401, '{"error":"Authentication failed"}')
    assert.strictEqual(rejected?._tag, "UploadRejected")
    assert.strictEqual(rejected?.status, 401)
    assert.strictEqual(rejected?.message, "Authentication failed")
    assert.isUndefined(Response.rejection(500, "oops"))
    assert.isUndefined(Response.rejection(500, '{"error":""}'))
    assert.isUndefined(Response.rejection(500, '{"message":"x"}'))
    assert.isUndefined(Response.rejection(500, "null"))
  })
})
