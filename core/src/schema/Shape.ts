/**
 * Input schemas that check a shape only, for values a service checks itself with its own typed
 * errors (key shards, access conditions, values substituted into conditions): the schema says
 * "an object", the service says what is wrong inside it.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type { KeyShard } from "./KeyShard.ts"

const isObject = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * An object (not an array, not `null`) of any content.
 *
 * @category schemas
 */
export const AnyObject = Schema.declare((u: unknown): u is unknown => isObject(u), { expected: "an object" })

/**
 * An object of named values (an array is not one).
 *
 * @category schemas
 */
export const Fields = Schema.declare(isObject, { expected: "an object" })

/**
 * A key shard as an input: any object, taken as `{ key, index }`. Its values are checked by the
 * operation that uses it (`InvalidKeyShards`, and the key's recovery), which names what is wrong.
 *
 * @category schemas
 */
export const KeyShardInput = Schema.declare((u: unknown): u is KeyShard => isObject(u), {
  expected: "a key shard ({ key, index })"
})
