/**
 * What every mock host reads from a request: the bearer token, the query, and CIDs in any of the
 * forms the provider accepts.
 */
import { base16upper } from "multiformats/bases/base16"
import { base32upper } from "multiformats/bases/base32"
import { CID } from "multiformats/cid"
import { errorResponse } from "./Respond.ts"

/** The token of `Authorization: Bearer <token>`, or `undefined`. */
export const bearerToken = (request: Request): string | undefined => {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")
  return match?.[1]
}

export const queryOf = (request: Request): URLSearchParams => new URL(request.url).searchParams

/** A CID in any multibase the provider accepts, or `undefined`. */
export const parseCid = (input: string): CID | undefined => {
  // `CID.parse` knows Qm…, b…, z… and k… on its own; B… and F… need their decoder named.
  const decoder = input.startsWith("B") ? base32upper : input.startsWith("F") ? base16upper : undefined
  try {
    return decoder === undefined ? CID.parse(input) : CID.parse(input, decoder)
  } catch {
    return undefined
  }
}

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
