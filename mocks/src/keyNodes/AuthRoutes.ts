/**
 * The host-level auth routes of the encryption host (not per node):
 *
 * - `GET /api/message/{address}` → `[{ message }]`, a fresh nonce each call, replacing the
 *   address's pending message; it can be signed for `messageTtlSeconds` (`Auth.ts` bounds them);
 * - `POST /api/message/get-jwt` `{ address, signature, chain }` → `{ token, refreshToken }`
 *   once the signature of the current message checks out, else 401 `Invalid Signature`;
 * - `PUT /api/message/get-jwt` `{ address, refreshToken }` → a new pair, else 401
 *   `Invalid Refresh Token` (kavach reports every getJWT failure as `Invalid Signature` anyway).
 *
 * @since 0.1.0
 */

import { Routes } from "lighthouse-effect/contract"
import type { HttpHandler } from "msw"
import { on } from "../http/Routes.ts"
import { normalizeAddress } from "./Auth.ts"
import { type KeyNodeContext, readJsonObject, withFaults } from "./Context.ts"
import { badRequest, invalidAddress, invalidRefreshToken, invalidSignature, reply } from "./Replies.ts"

export const authRoutes = (context: KeyNodeContext): Array<HttpHandler> => [
  on(context.host, Routes.keyNodeAuth.getJwt, ({ request }) =>
    withFaults(context, undefined, request, async () => {
      const body = await readJsonObject(request)
      if (body === undefined) return badRequest("Request body must be a JSON object")
      const address = normalizeAddress(body.address)
      if (address === undefined) return invalidAddress()
      const chain = typeof body.chain === "string" && body.chain !== "" ? body.chain : "ALL"
      const pair = await context.auth.exchangeSignature(address, body.signature, chain)
      return pair === undefined ? invalidSignature() : reply(pair)
    })
  ),
  on(context.host, Routes.keyNodeAuth.refreshJwt, ({ request }) =>
    withFaults(context, undefined, request, async () => {
      const body = await readJsonObject(request)
      if (body === undefined) return badRequest("Request body must be a JSON object")
      const address = normalizeAddress(body.address)
      if (address === undefined) return invalidAddress()
      const pair = await context.auth.refresh(address, body.refreshToken)
      return pair === undefined ? invalidRefreshToken() : reply(pair)
    })
  ),
  on(context.host, Routes.keyNodeAuth.authMessage, ({ request, params }) =>
    withFaults(context, undefined, request, () => {
      const address = normalizeAddress(params.address)
      if (address === undefined) return invalidAddress()
      return reply([{ message: context.auth.issueMessage(address).message }])
    })
  )
]
