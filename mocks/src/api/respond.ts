/**
 * Small pieces every mock host answers with: JSON bodies, the provider's `{ "error": … }` error
 * shape, bearer tokens and CID query parameters.
 */
import { HttpResponse } from "msw"
import type { CID } from "multiformats/cid"
import { parseCid } from "../upload/ContentStore.ts"

export const json = (body: unknown, status = 200): Response => HttpResponse.json(body as never, { status })

export const errorResponse = (status: number, error: string): Response => json({ error }, status)

/** The upload node's and the API's answer to a missing or unknown key. */
export const authenticationFailed = (): Response => errorResponse(401, "Authentication failed")

/** The token of `Authorization: Bearer <token>`, or `undefined`. */
export const bearerToken = (request: Request): string | undefined => {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")
  return match?.[1]
}

export const queryOf = (request: Request): URLSearchParams => new URL(request.url).searchParams

/** A query parameter holding a CID: the parsed CID, or an error answer. */
export const cidParam = (
  request: Request,
  name = "cid"
): { readonly cid: CID; readonly text: string } | { readonly error: Response } => {
  const text = queryOf(request).get(name) ?? ""
  if (text === "") return { error: errorResponse(400, `${name} is required`) }
  const cid = parseCid(text)
  return cid === undefined ? { error: errorResponse(400, "Invalid CID") } : { cid, text }
}
