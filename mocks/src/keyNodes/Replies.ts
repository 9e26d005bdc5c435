/**
 * The bodies and status codes the key nodes answer with.
 *
 * Where kavach's own tests pin a shape (the return shape of each call, every failure mode they
 * record) it is reproduced exactly; the rest is this mock's documented choice:
 *
 * - `Invalid Signature` and `Invalid address` arrive flat, as `{ message }` (401 and 400).
 * - `Access Denied` is nested three levels, `{ message: { message: { message: "Access Denied" } } }`
 *   (403), so `error.message.message.message` reads it after kavach spreads the body. It never
 *   contains the text `null`, or kavach's recoverShards would report it as `cid not found`.
 * - An unknown CID is a 400 whose text contains `null` (`{ message: "cid not found", data: null }`),
 *   which kavach maps to `cid not found`. It is not a 404: kavach turns every 404 into a retried
 *   `fetch Error` and never reads its body.
 * - 404 is kept for unknown paths and node ids.
 *
 * @since 0.1.0
 */
import { HttpResponse } from "msw"

/** The JSON answer of a key node; `status` defaults to 200. */
export const reply = (body: unknown, status = 200): Response => HttpResponse.json(body as never, { status })

/** A write or read that went through: `{ message: "success", data }`. */
export const success = (data: unknown): Response => reply({ message: "success", data })

/** A signature or token that does not prove the address (401). */
export const invalidSignature = (): Response => reply({ message: "Invalid Signature" }, 401)

/** A JWT past its `exp` (401), worded as the common Node JWT libraries word it. */
export const jwtExpired = (): Response => reply({ message: "jwt expired" }, 401)

/** A refresh token that is unknown, spent, expired or issued to another address (401). */
export const invalidRefreshToken = (): Response => reply({ message: "Invalid Refresh Token" }, 401)

/** An address that is neither an EVM address nor a 44-character base58 key (400). */
export const invalidAddress = (): Response => reply({ message: "Invalid address" }, 400)

/** A CID that fails the accepted forms (400). */
export const invalidCid = (): Response => reply({ message: "Invalid CID" }, 400)

/** No record for this CID on this node (400, text containing `null`). */
export const cidNotFound = (): Response => reply({ message: "cid not found", data: null }, 400)

/** The caller is not entitled to this record (403), nested as the provider nests it. */
export const accessDenied = (): Response => reply({ message: { message: { message: "Access Denied" } } }, 403)

/** Any other malformed request (400), with a message naming the problem. */
export const badRequest = (message: string): Response => reply({ message }, 400)

/** An unknown path or node id (404). */
export const notFound = (): Response => reply({ message: "Not Found" }, 404)

/** A failure inside the mock itself (500); logged, never expected. */
export const internalError = (): Response => reply({ message: "Internal Server Error" }, 500)
