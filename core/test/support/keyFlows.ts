/**
 * What the key-shard flows share: the three key services and the key as a signer recovers it.
 */
import { Effect, Redacted } from "effect"
import * as AccessControl from "../../src/AccessControl.ts"
import * as Auth from "../../src/Auth.ts"
import * as KeyShards from "../../src/KeyShards.ts"
import type * as Signer from "../../src/Signer.ts"
import type { VirtualTime } from "./network.ts"

/** The services, `tokenOf` (a signer's cached JWT) and `recoverAs`: the key of `cid` as `signer` recovers it, or the failure's tag. */
export const keyFlow = (settle: VirtualTime["settle"], cid: string) =>
  Effect.gen(function* () {
    const auth = yield* Auth.Auth
    const shards = yield* KeyShards.KeyShards
    const access = yield* AccessControl.AccessControl
    const recoverAs = (signer: Signer.Service) =>
      settle(
        Effect.gen(function* () {
          const token = yield* auth.token(signer)
          return Redacted.value(yield* shards.fetchKey({ cid, address: signer.address, token }))
        })
      ).pipe(Effect.catch((e) => Effect.succeed(e._tag)))
    const tokenOf = (signer: Signer.Service) => settle(auth.token(signer))
    return { auth, shards, access, recoverAs, tokenOf }
  })
