/**
 * Signing in: the message a wallet signs, and the API key its signature buys.
 *
 * @since 0.1.0
 */

import { Routes } from "lighthouse-effect/contract"
import type { HttpHandler } from "msw"
import { queryOf } from "../http/Request.ts"
import { errorResponse, json } from "../http/Respond.ts"
import { on } from "../http/Routes.ts"
import { type Accounts, InvalidAddress } from "./Accounts.ts"
import { type ApiHostContext, route } from "./Context.ts"

const authMessage = (accounts: Accounts, request: Request): Response => {
  const publicKey = queryOf(request).get("publicKey") ?? ""
  try {
    return json(accounts.issueMessage(publicKey))
  } catch (error) {
    if (error instanceof InvalidAddress) return errorResponse(400, "Invalid public key")
    throw error
  }
}

const createApiKey = async (accounts: Accounts, request: Request): Promise<Response> => {
  let body: unknown
  try {
    body = await request.json()
  } catch {
    return errorResponse(400, "the body must be JSON {publicKey, signedMessage}")
  }
  const { publicKey, signedMessage } = (body ?? {}) as { publicKey?: unknown; signedMessage?: unknown }
  if (typeof publicKey !== "string" || typeof signedMessage !== "string") {
    return errorResponse(400, "publicKey and signedMessage are required")
  }
  let outcome: Awaited<ReturnType<Accounts["redeemSignature"]>>
  try {
    outcome = await accounts.redeemSignature(publicKey, signedMessage)
  } catch (error) {
    if (error instanceof InvalidAddress) return errorResponse(400, "Invalid public key")
    throw error
  }
  if (outcome === "no-message") return errorResponse(400, "No auth message issued for this public key")
  if (outcome === "bad-signature") return errorResponse(401, "Invalid signature")
  return json(accounts.addApiKey(outcome.address))
}

export const authRoutes = (context: ApiHostContext): Array<HttpHandler> => {
  const { host, accounts } = context
  const message = route(context, ({ request }) => authMessage(accounts, request))
  const apiKey = route(context, ({ request }) => createApiKey(accounts, request))
  return [
    on(host, Routes.auth.getAuthMessage, message),
    on(host, Routes.auth.getMessage, message),
    on(host, Routes.auth.createApiKey, apiKey),
    on(host, Routes.auth.getApiKey, apiKey)
  ]
}
