/**
 * Flow `account`: the owner signs up as a user would, with a wallet signature for an API key
 * (`Auth.createApiKey`: the API's auth message, signed, exchanged for a key), then reads the
 * account's data usage with it (`Files.usage`).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { Auth, Files } from "lighthouse-effect"
import { Env } from "./Environment.ts"
import type { Flow } from "./Flow.ts"
import * as Format from "./Format.ts"
import { keep } from "./Session.ts"
import { step } from "./Step.ts"

export const account: Flow = {
  name: "account",
  title: "an API key for a signed message, then the account's usage",
  needs: [],
  run: Effect.gen(function* () {
    const { wallets } = yield* Env
    const auth = yield* Auth.Auth
    const files = yield* Files.Files
    const owner = wallets.owner

    const apiKey = yield* step(
      "auth.createApiKey",
      "create an API key",
      auth.createApiKey(owner.signer),
      (key) => `${Format.secret(key)} for owner ${Format.address(owner.address)}`
    )
    yield* keep("apiKey", apiKey)

    yield* step(
      "files.usage",
      "read data usage",
      files.usage(apiKey),
      (usage) => `limit ${Format.bytes(usage.dataLimit)}, used ${Format.bytes(usage.dataUsed)}`
    )
  })
}
