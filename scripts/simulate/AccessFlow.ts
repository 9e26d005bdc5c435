/**
 * Flow `access`: who may read an encrypted file. The owner adds an access condition to one of its
 * encrypted files (at least 1 of the local 6-decimal USDC, an ERC20 `balanceOf` the key nodes
 * evaluate on the chain): the holder is refused until tokens are minted to it, then recovers the
 * key and decrypts. The owner shares the file with a friend (who recovers the key) and revokes it
 * (who is refused again); a stranger is refused with the typed `AccessDenied` throughout. Last, a
 * new encrypted note changes owner: the friend recovers it as owner, the former owner is refused.
 *
 * @since 0.1.0
 */
import { Effect, Redacted } from "effect"
import { AccessControl, Auth, Download, KeyShards, Upload } from "lighthouse-effect"
import { Env, type Environment, mint, type Wallet } from "./Environment.ts"
import type { Flow } from "./Flow.ts"
import * as Format from "./Format.ts"
import { need } from "./Session.ts"
import { type CheckFailed, check, refused, sameBytes, step } from "./Step.ts"

const oneUsdc = 1_000_000n

/** The master key of a file (by default the owner's), recovered from 3 key nodes as `wallet`. */
const keyRecovery = (
  auth: Auth.Auth["Service"],
  shards: KeyShards.KeyShards["Service"],
  cid: string,
  secrets: Set<string>
) =>
  Effect.fnUntraced(function* (wallet: Wallet, target: string = cid) {
    const token = yield* auth.token(wallet.signer)
    const key = Redacted.value(yield* shards.fetchKey({ cid: target, address: wallet.address, token }))
    secrets.add(key)
    return key
  })

/** What every part of the flow uses: the services, the owner's file and how to recover keys. */
interface AccessRun {
  readonly control: AccessControl.AccessControl["Service"]
  readonly env: Environment
  readonly cid: string
  readonly file: { readonly name: string; readonly bytes: Uint8Array }
  readonly ownerToken: Redacted.Redacted<string>
  readonly keyAs: ReturnType<typeof keyRecovery>
  /** Fails unless `key` is the owner's. */
  readonly sameKey: (key: string, who: string) => Effect.Effect<void, CheckFailed>
}

/** An ERC20 condition: the holder is refused until it holds 1 USDC, then recovers and decrypts. */
const conditionReleases = Effect.fnUntraced(function* (run: AccessRun) {
  const { control, cid, file, ownerToken, keyAs, sameKey } = run
  const { wallets, deployment } = run.env
  const { owner, holder } = wallets
  const download = yield* Download.Download
  const condition = {
    id: 1,
    chain: "Hardhat",
    method: "balanceOf",
    standardContractType: "ERC20",
    contractAddress: deployment.usdc,
    parameters: [":userAddress"],
    returnValueTest: { comparator: ">=", value: oneUsdc.toString() }
  }

  yield* step(
    "access.update",
    "add condition: ≥ 1 USDC",
    control.update({ address: owner.address, cid, token: ownerToken, conditions: [condition] }),
    (result) => `ERC20 balanceOf(:userAddress) ≥ 1 USDC on ${Format.address(deployment.usdc)}: ${Format.nodes(result)}`
  )

  yield* step(
    "access.get",
    "read the access conditions",
    control.get(cid),
    (record) =>
      `owner ${Format.address(record.owner)}, ${record.conditions.length} condition, ` +
      `shared with ${record.sharedTo.length}`
  )

  yield* refused("keyShards.refused.noBalance", "holder without USDC refused", keyAs(holder), "AccessDenied")

  yield* step(
    "chain.mint",
    "mint 5 USDC to the holder",
    mint(deployment.usdc, holder.address, 5n * oneUsdc),
    () => `holder ${Format.address(holder.address)} now meets the condition`
  )

  yield* step(
    "keyShards.fetchKey.condition",
    "key recovery as condition holder",
    Effect.tap(keyAs(holder), (key) => sameKey(key, "the holder")),
    () => "released by condition: the owner's key"
  )

  yield* step(
    "download.decrypt.condition",
    "holder downloads and decrypts",
    Effect.tap(download.bytes(cid, { decrypt: { signer: holder.signer } }), (bytes) =>
      check(sameBytes(bytes, file!.bytes), "the holder's decrypted bytes differ")
    ),
    (bytes) => `${file!.name}: ${Format.bytes(bytes.length)}, identical`
  )
})

/** Sharing releases the key to the friend; revoking refuses it again; a stranger never gets it. */
const shareAndRevoke = Effect.fnUntraced(function* (run: AccessRun) {
  const { control, cid, ownerToken, keyAs, sameKey } = run
  const { owner, friend, stranger } = run.env.wallets
  yield* step(
    "access.share",
    "share with the friend",
    control.share({ address: owner.address, cid, token: ownerToken, shareTo: [friend.address] }),
    (result) => `friend ${Format.address(friend.address)}: ${Format.nodes(result)}`
  )

  yield* step(
    "keyShards.fetchKey.shared",
    "key recovery as shared address",
    Effect.tap(keyAs(friend), (key) => sameKey(key, "the friend")),
    () => "released to a shared address: the owner's key"
  )

  yield* refused("keyShards.refused.stranger", "stranger refused", keyAs(stranger), "AccessDenied")

  yield* step(
    "access.revoke",
    "revoke the friend",
    control.revoke({ address: owner.address, cid, token: ownerToken, revokeTo: friend.address }),
    (result) => `friend ${Format.address(friend.address)}: ${Format.nodes(result)}`
  )

  yield* refused("keyShards.refused.revoked", "friend refused after revoke", keyAs(friend), "AccessDenied")
})

/** A new note changes owner: the friend recovers its key as owner, the former owner is refused. */
const transferNote = Effect.fnUntraced(function* (run: AccessRun, apiKey: Redacted.Redacted<string>) {
  const { control, ownerToken, keyAs } = run
  const { owner, friend } = run.env.wallets
  const uploads = yield* Upload.Upload
  const note = yield* step(
    "upload.encryptedText",
    "encrypt and upload a note",
    uploads.encryptedText("The keys to the boat are with the friend now.\n", {
      apiKey,
      address: owner.address,
      token: ownerToken,
      name: "handover.txt"
    }),
    (entry) => `${entry.Hash} ${entry.Name}`
  )

  yield* step(
    "access.transferOwnership",
    "transfer the note to the friend",
    control.transferOwnership({
      address: owner.address,
      cid: note.Hash,
      token: ownerToken,
      newOwner: friend.address
    }),
    (result) => `new owner ${Format.address(friend.address)}: ${Format.nodes(result)}`
  )

  yield* step(
    "keyShards.fetchKey.newOwner",
    "key recovery as new owner",
    keyAs(friend, note.Hash),
    (key) => `friend recovers ${note.Name}'s key ${Format.secret(key)}`
  )

  yield* refused("keyShards.refused.formerOwner", "former owner refused", keyAs(owner, note.Hash), "AccessDenied")
})

export const access: Flow = {
  name: "access",
  title: "access condition, share, revoke and transfer; who gets the key",
  needs: ["encryption"],
  run: Effect.gen(function* () {
    const env = yield* Env
    const auth = yield* Auth.Auth
    const control = yield* AccessControl.AccessControl
    const shards = yield* KeyShards.KeyShards
    const apiKey = yield* need("apiKey")
    const [file] = yield* need("encrypted")
    const { owner } = env.wallets
    const cid = file!.cid

    const keyAs = keyRecovery(auth, shards, cid, env.secrets)
    const ownerToken = yield* step(
      "auth.token.cached",
      "owner's JWT again",
      auth.token(owner.signer),
      (jwt) => `${Format.secret(jwt)}: the cached token, no new sign-in`
    )
    const ownerKey = yield* step(
      "keyShards.fetchKey.owner",
      "key recovery as owner",
      keyAs(owner),
      (key) => `${file!.name}: 3 shards → master key ${Format.secret(key)}`
    )
    const sameKey = (key: string, who: string) => check(key === ownerKey, `${who} recovered another key`)
    const run: AccessRun = { control, env, cid, file: file!, ownerToken, keyAs, sameKey }
    yield* conditionReleases(run)
    yield* shareAndRevoke(run)
    yield* transferNote(run, apiKey)
  })
}
