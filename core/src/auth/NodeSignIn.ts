/**
 * Signing in to the key nodes (encryption host): an auth message per address
 * (`GET /api/message/{address}`), a JWT for a signature of it (`POST /api/message/get-jwt`), a
 * refresh (`PUT` on the same path).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { InvalidResponse, InvalidSignature } from "../Errors.ts"
import { reveal } from "../internal/http.ts"
import type { KeyNodes } from "../KeyNodes.ts"
import { pathOf, Routes } from "../routes/Routes.ts"
import type { Signer } from "../Signer.ts"
import { parsePublicKey } from "../schema/Address.ts"
import type { JwtInput, JwtPair, RefreshInput } from "./Models.ts"

/** `GET /api/message/{address}` answers `[{ message }]`. */
export const NodeMessageResponse = Schema.NonEmptyArray(Schema.Struct({ message: Schema.String }))

/** `get-jwt` answers `{ token, refreshToken }`. */
export const JwtResponse = Schema.Struct({ token: Schema.String, refreshToken: Schema.String })

const toPair = (answer: typeof JwtResponse.Type): JwtPair => ({
  token: Redacted.make(answer.token, { label: "JWT" }),
  refreshToken: Redacted.make(answer.refreshToken, { label: "RefreshToken" })
})

// Host-level routes of the encryption host are reported as node 0.
const hostNode = 0

export const nodeMessage = Effect.fn("Auth.nodeMessage")(function* (nodes: KeyNodes["Service"], address: string) {
  const publicKey = yield* parsePublicKey(address)
  const route = Routes.keyNodeAuth.authMessage
  const path = pathOf(route, { address: publicKey })
  const answer = yield* nodes.call(hostNode, { method: route.method, path })
  const decoded = yield* Schema.decodeUnknownEffect(NodeMessageResponse)(answer).pipe(
    Effect.mapError((e) => new InvalidResponse({ url: nodes.urlOf(path), detail: e.message }))
  )
  return decoded[0].message
})

const getJwt = (
  nodes: KeyNodes["Service"],
  request: {
    readonly route: typeof Routes.keyNodeAuth.getJwt | typeof Routes.keyNodeAuth.refreshJwt
    readonly body: unknown
  }
) =>
  nodes.call(hostNode, { method: request.route.method, path: request.route.path, body: request.body }).pipe(
    Effect.flatMap(Schema.decodeUnknownEffect(JwtResponse)),
    Effect.map(toPair),
    // The provider reports every failure of this call as `Invalid Signature`; the cause keeps the why.
    Effect.mapError((cause) => new InvalidSignature({ cause }))
  )

export const jwt = Effect.fn("Auth.jwt")(function* (nodes: KeyNodes["Service"], input: JwtInput) {
  const address = yield* parsePublicKey(input.address)
  return yield* getJwt(nodes, {
    route: Routes.keyNodeAuth.getJwt,
    body: { address, signature: reveal(input.signature), chain: input.chain ?? "ALL" }
  })
})

export const refresh = Effect.fn("Auth.refresh")(function* (nodes: KeyNodes["Service"], input: RefreshInput) {
  const address = yield* parsePublicKey(input.address)
  return yield* getJwt(nodes, {
    route: Routes.keyNodeAuth.refreshJwt,
    body: { address, refreshToken: reveal(input.refreshToken) }
  })
})

export const signIn = Effect.fn("Auth.signIn")(function* (
  nodes: KeyNodes["Service"],
  signer: Signer["Service"],
  signInOptions?: { readonly chain?: string | undefined }
) {
  const message = yield* nodeMessage(nodes, signer.address)
  const signature = yield* signer.signMessage(message)
  return yield* jwt(nodes, { address: signer.address, signature, chain: signInOptions?.chain })
})
