/**
 * Flow `delegation`: account delegation, which the provider's SDKs do not have. The owner lets
 * the friend recover the key of every file it owns (one call to the 5 key nodes); the friend,
 * with its own JWT and naming the owner, recovers the key of each encrypted file and decrypts
 * one; a stranger naming the owner is refused; once the owner revokes, the friend is refused too.
 *
 * @since 0.1.0
 */
import { Effect, Redacted } from "effect"
import { AccessControl, Auth, Download, KeyShards } from "lighthouse-effect"
import { Env, type Wallet } from "./Environment.ts"
import type { Flow } from "./Flow.ts"
import * as Format from "./Format.ts"
import { need } from "./Session.ts"
import { check, refused, sameBytes, step } from "./Step.ts"

export const delegation: Flow = {
  name: "delegation",
  title: "account delegation: a delegate recovers every key of the owner until revoked",
  needs: ["encryption"],
  run: Effect.gen(function* () {
    const { wallets, secrets } = yield* Env
    const auth = yield* Auth.Auth
    const control = yield* AccessControl.AccessControl
    const shards = yield* KeyShards.KeyShards
    const download = yield* Download.Download
    const files = yield* need("encrypted")
    const { owner, friend, stranger } = wallets
    const [first] = files

    /** The key of `cid` as `wallet` recovers it as a delegate of the owner. */
    const keyAsDelegate = (wallet: Wallet, cid: string) =>
      Effect.gen(function* () {
        const token = yield* auth.token(wallet.signer)
        const key = yield* shards.fetchKey({ cid, address: wallet.address, token, ownerAddress: owner.address })
        secrets.add(Redacted.value(key))
        return key
      })

    yield* refused(
      "keyShards.refused.notDelegate",
      "friend refused before the delegation",
      keyAsDelegate(friend, first!.cid),
      "AccessDenied"
    )
    const ownerToken = yield* auth.token(owner.signer).pipe(Effect.orDie)
    yield* step(
      "access.delegateAllFiles",
      "owner delegates all its files to the friend",
      control.delegateAllFiles({ address: owner.address, token: ownerToken, delegates: [friend.address] }),
      (result) => `friend ${Format.address(friend.address)}: ${Format.nodes(result)}`
    )
    const keys = yield* step(
      "keyShards.fetchKey.delegate",
      "the friend recovers every file's key with its own JWT",
      Effect.forEach(files, (file) => keyAsDelegate(friend, file.cid)),
      (recovered) => `${recovered.length} keys, one per encrypted file`
    )
    yield* step(
      "download.decrypt.delegate",
      "the friend decrypts a file with the recovered key",
      Effect.tap(download.bytes(first!.cid, { decrypt: { masterKey: keys[0]! } }), (bytes) =>
        check(sameBytes(bytes, first!.bytes), "the delegate's decrypted bytes differ")
      ),
      (bytes) => `${first!.name}: ${Format.bytes(bytes.length)}, identical`
    )
    yield* refused(
      "keyShards.refused.strangerAsDelegate",
      "a stranger naming the owner is refused",
      keyAsDelegate(stranger, first!.cid),
      "AccessDenied"
    )
    yield* step(
      "access.revokeDelegates",
      "owner revokes its delegates",
      control.revokeDelegates({ address: owner.address, token: ownerToken }),
      (result) => Format.nodes(result)
    )
    yield* refused(
      "keyShards.refused.revokedDelegate",
      "friend refused after the revocation",
      keyAsDelegate(friend, first!.cid),
      "AccessDenied"
    )
  })
}
