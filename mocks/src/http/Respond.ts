/**
 * The answers every mock host gives: JSON bodies and the provider's `{ "error": … }` error shape.
 */
import { HttpResponse } from "msw"

export const json = (body: unknown, status = 200): Response => HttpResponse.json(body as never, { status })

export const errorResponse = (status: number, error: string): Response => json({ error }, status)

/** The upload node's and the API's answer to a missing or unknown key. */
export const authenticationFailed = (): Response => errorResponse(401, "Authentication failed")
