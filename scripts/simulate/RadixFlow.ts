/**
 * Flow `radix`: a file gated by a Radix condition. The owner encrypts a note and sets a Radix
 * condition on it (at least 25 XRD, `getFtsByAddress` on the XRD resource), which the key nodes
 * evaluate against the simulated Radix ledger for the account that signs in: the holder is refused
 * until the ledger credits it, then recovers the key and decrypts. Last, clearing the conditions
 * with an empty list is refused before any request, as documented in docs/differences.md.
 *
 * @since 0.1.0
 */
import { Effect, Redacted } from "effect"
import { AccessControl, Auth, Download, KeyShards, Upload } from "lighthouse-effect"
import { Env, mock, type Wallet } from "./Environment.ts"
import type { Flow } from "./Flow.ts"
import * as Format from "./Format.ts"
import { need } from "./Session.ts"
import { check, refused, sameBytes, step } from "./Step.ts"

/** XRD, the Radix network's own token. */
const xrd = "resource_rdx1tknxxxxxxxxxradxrdxxxxxxxxx009923554798xxxxxxxxxradxrd"
const note = "Radix holders only: the meeting moved to Thursday.\n"

export const radix: Flow = {
  name: "radix",
  title: "a Radix-gated file: an XRD balance decides who gets the key",
  needs: ["account"],
  run: Effect.gen(function* () {
    const { wallets } = yield* Env
    const auth = yield* Auth.Auth
    const control = yield* AccessControl.AccessControl
    const shards = yield* KeyShards.KeyShards
    const uploads = yield* Upload.Upload
    const download = yield* Download.Download
    const apiKey = yield* need("apiKey")
    const { owner, holder } = wallets

    const keyAs = Effect.fnUntraced(function* (wallet: Wallet, cid: string) {
      const token = yield* auth.token(wallet.signer)
      return Redacted.value(yield* shards.fetchKey({ cid, address: wallet.address, token }))
    })
    const token = yield* step(
      "auth.token",
      "owner's JWT",
      auth.token(owner.signer),
      (jwt) => `${Format.secret(jwt)} (cached if an earlier flow signed in)`
    )

    const file = yield* step(
      "upload.encryptedText.radix",
      "encrypt and upload a note for XRD holders",
      uploads.encryptedText(note, { apiKey, address: owner.address, token, name: "xrd-holders.txt" }),
      (entry) => `${entry.Hash} ${entry.Name}`
    )
    const condition = {
      id: 1,
      chain: "Radix_Mainnet",
      method: "getFtsByAddress",
      standardContractType: "",
      resourceAddress: xrd,
      returnValueTest: { comparator: ">=", value: "25" }
    }
    yield* step(
      "access.update.radix",
      "add a Radix condition: ≥ 25 XRD",
      control.update({ address: owner.address, cid: file.Hash, token, conditions: [condition], chainType: "RADIX" }),
      (result) => `getFtsByAddress(${Format.address(xrd)}) ≥ 25 on Radix_Mainnet: ${Format.nodes(result)}`
    )
    yield* refused("keyShards.refused.radix", "holder without XRD refused", keyAs(holder, file.Hash), "AccessDenied")
    yield* step(
      "mock.radixLedger",
      "the Radix ledger credits 25 XRD to the holder",
      mock(async (network) => network.state.keyNodes.ledger.radix.setFungibleBalance(holder.address, xrd, "25")),
      () => `holder ${Format.address(holder.address)} holds 25 XRD`
    )
    yield* step(
      "download.decrypt.radix",
      "holder recovers the key and decrypts",
      Effect.tap(download.bytes(file.Hash, { decrypt: { signer: holder.signer } }), (bytes) =>
        check(sameBytes(bytes, new TextEncoder().encode(note)), "the holder's decrypted note differs")
      ),
      (bytes) => `released by the Radix condition: ${Format.bytes(bytes.length)}, identical`
    )
    yield* refused(
      "access.refused.emptyConditions",
      "clearing the conditions with [] is refused",
      control.update({ address: owner.address, cid: file.Hash, token, conditions: [], chainType: "RADIX" }),
      "ConditionValidationError"
    )
  })
}
