/**
 * The API host's side of auth: the auth message (`get_auth_message`, or the older `get_message`),
 * an API key for a signed message (`create_api_key`), and the one-time upload token
 * `address$signature` of a signed `get_message`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { type Hosts, json } from "../internal/Hosts.ts"
import { reveal } from "../internal/http.ts"
import { type Route, Routes } from "../routes/Routes.ts"
import type { Signer } from "../Signer.ts"
import { parsePublicKey } from "../schema/Address.ts"
import type { ApiKeyInput } from "./Models.ts"

const apiGetMessage = (hosts: Hosts, route: Route<"GET">, publicKey: string) =>
  Effect.gen(function* () {
    const key = yield* parsePublicKey(publicKey)
    const request = HttpClientRequest.get(route.path, { urlParams: { publicKey: key } }).pipe(
      HttpClientRequest.acceptJson
    )
    return yield* json(hosts.apiHttpError, request, Schema.String)
  })

export const apiAuthMessage = Effect.fn("Auth.apiAuthMessage")(function* (hosts: Hosts, publicKey: string) {
  return yield* apiGetMessage(hosts, Routes.auth.getAuthMessage, publicKey)
})

export const apiMessage = Effect.fn("Auth.apiMessage")(function* (hosts: Hosts, publicKey: string) {
  return yield* apiGetMessage(hosts, Routes.auth.getMessage, publicKey)
})

export const apiKey = Effect.fn("Auth.apiKey")(function* (hosts: Hosts, input: ApiKeyInput) {
  const publicKey = yield* parsePublicKey(input.publicKey)
  const request = HttpClientRequest.post(Routes.auth.createApiKey.path).pipe(
    HttpClientRequest.acceptJson,
    HttpClientRequest.bodyJsonUnsafe({ publicKey, signedMessage: reveal(input.signedMessage) })
  )
  const key = yield* json(hosts.apiHttpError, request, Schema.String)
  return Redacted.make(key, { label: "ApiKey" })
})

export const createApiKey = Effect.fn("Auth.createApiKey")(function* (hosts: Hosts, signer: Signer["Service"]) {
  const message = yield* apiAuthMessage(hosts, signer.address)
  const signedMessage = yield* signer.signMessage(message)
  return yield* apiKey(hosts, { publicKey: signer.address, signedMessage })
})

export const oneTimeToken = Effect.fn("Auth.oneTimeToken")(function* (hosts: Hosts, signer: Signer["Service"]) {
  const message = yield* apiMessage(hosts, signer.address)
  const signature = yield* signer.signMessage(message)
  return Redacted.make(`${signer.address}$${signature}`, { label: "OneTimeToken" })
})
