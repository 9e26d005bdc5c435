/**
 * The API host's side of auth: the auth message (`get_auth_message`, or the older `get_message`),
 * an API key for a signed message (`create_api_key`), and the one-time upload token
 * `address$signature` of a signed `get_message`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import { executeJson, reveal, url } from "../internal/http.ts"
import type * as LighthouseConfig from "../LighthouseConfig.ts"
import { parsePublicKey } from "../schema/Address.ts"
import type { Signer } from "../Signer.ts"
import type { ApiKeyInput } from "./Models.ts"

/** What a call to the API host needs. */
export interface ApiDeps {
  readonly config: LighthouseConfig.Options
  readonly client: HttpClient.HttpClient
}

const apiGetMessage = ({ config, client }: ApiDeps, path: string, publicKey: string) =>
  Effect.gen(function* () {
    const key = yield* parsePublicKey(publicKey)
    const request = HttpClientRequest.get(url(config.hosts.api, path, { publicKey: key })).pipe(
      HttpClientRequest.acceptJson
    )
    return yield* executeJson(client, request, Schema.String, {
      style: "http-error",
      timeout: config.requestTimeout
    })
  })

export const apiAuthMessage = Effect.fn("Auth.apiAuthMessage")(function* (deps: ApiDeps, publicKey: string) {
  return yield* apiGetMessage(deps, "/api/auth/get_auth_message", publicKey)
})

export const apiMessage = Effect.fn("Auth.apiMessage")(function* (deps: ApiDeps, publicKey: string) {
  return yield* apiGetMessage(deps, "/api/auth/get_message", publicKey)
})

export const apiKey = Effect.fn("Auth.apiKey")(function* ({ config, client }: ApiDeps, input: ApiKeyInput) {
  const publicKey = yield* parsePublicKey(input.publicKey)
  const request = HttpClientRequest.post(url(config.hosts.api, "/api/auth/create_api_key")).pipe(
    HttpClientRequest.acceptJson,
    HttpClientRequest.bodyJsonUnsafe({ publicKey, signedMessage: reveal(input.signedMessage) })
  )
  const key = yield* executeJson(client, request, Schema.String, {
    style: "http-error",
    timeout: config.requestTimeout
  })
  return Redacted.make(key, { label: "ApiKey" })
})

export const createApiKey = Effect.fn("Auth.createApiKey")(function* (deps: ApiDeps, signer: Signer["Service"]) {
  const message = yield* apiAuthMessage(deps, signer.address)
  const signedMessage = yield* signer.signMessage(message)
  return yield* apiKey(deps, { publicKey: signer.address, signedMessage })
})

export const oneTimeToken = Effect.fn("Auth.oneTimeToken")(function* (deps: ApiDeps, signer: Signer["Service"]) {
  const message = yield* apiMessage(deps, signer.address)
  const signature = yield* signer.signMessage(message)
  return Redacted.make(`${signer.address}$${signature}`, { label: "OneTimeToken" })
})
