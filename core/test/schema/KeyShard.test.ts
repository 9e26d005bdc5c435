import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { KeyShard } from "../../src/schema/KeyShard.ts"

const key = "0ca5330ed71f0fa1e9db7d115f3fcc4bcb40c5a02a776c778835f8888de775ef"
const index = "38dc435a678ec540af34bee6b879c992e4528adfc514670c02e4f1b746618dfc"
const decode = Schema.decodeUnknownExit(KeyShard)

describe("KeyShard", () => {
  it.effect("accepts the provider's shard and drops nothing it needs", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(decode({ key, index }), Exit.succeed({ key, index }))
    })
  )

  it.effect("refuses anything but 64 lower-case hex in either field", () =>
    Effect.sync(() => {
      for (const bad of [
        key.toUpperCase(),
        `0x${key}`,
        key.slice(0, 62),
        `${key}00`,
        `${key.slice(0, 62)}zz`,
        "",
        1,
        null
      ]) {
        assert.isTrue(Exit.isFailure(decode({ key: bad, index })), `key ${String(bad)}`)
        assert.isTrue(Exit.isFailure(decode({ key, index: bad })), `index ${String(bad)}`)
      }
      assert.isTrue(Exit.isFailure(decode({ key })))
    })
  )
})
