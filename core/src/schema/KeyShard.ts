/**
 * The key shard as the provider's key nodes store and return it: `{ key, index }`, each a
 * 32-byte big-endian scalar written as exactly 64 lower-case hex characters, no `0x`.
 *
 * The schema checks the wire format only. Whether the values are field elements (below the
 * BLS12-381 scalar order, index non-zero, indices distinct) is checked by `Shamir.recoverKey`,
 * which reports it as a typed error naming the shard.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** 32 bytes as 64 lower-case hex characters, the provider's encoding of a scalar. */
export const Hex64 = Schema.String.check(
  Schema.isPattern(/^[0-9a-f]{64}$/, { message: "must be 64 lower-case hex characters" })
).annotate({ identifier: "Hex64" })

/** One shard of a split master key. */
export const KeyShard = Schema.Struct({
  /** The polynomial's value at `index`. */
  key: Hex64,
  /** The shard's x-coordinate: a random non-zero scalar, not a position. */
  index: Hex64
}).annotate({ identifier: "KeyShard" })

export type KeyShard = typeof KeyShard.Type
