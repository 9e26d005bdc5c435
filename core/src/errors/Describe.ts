/**
 * A failure on one line, for a person or a log: the catalogue `message`, and for an HTTP failure
 * the request and the underlying cause, `Network error (POST http://127.0.0.1:8732/api/v0/add:
 * connect ECONNREFUSED)`. No secret is in it: errors hold their URLs redacted.
 *
 * @since 0.1.0
 */
import { oneLine } from "./Redact.ts"

interface Located {
  readonly _tag?: unknown
  readonly message: string
  readonly where: string
  readonly reason?: string | undefined
}

interface Wrapper {
  readonly firstCause: string | undefined
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

/** An HTTP failure: it says which request (`where`) and, mostly, why (`reason`). */
const isLocated = (error: unknown): error is Located =>
  isObject(error) && typeof error.where === "string" && typeof error.message === "string"

const isWrapper = (error: unknown): error is Wrapper => isObject(error) && "firstCause" in error

/**
 * `error` on one line: its message, and for an HTTP failure (`NetworkError`, `RequestTimedOut`,
 * `InvalidResponse`, `RequestFailed`, `HttpStatusError`) the request and the cause in brackets.
 *
 * @category rendering
 * @since 0.1.0
 */
export const describe = (error: unknown): string => {
  if (isLocated(error)) {
    if (error._tag === "InvalidResponse") return oneLine(`Invalid response from ${error.where}: ${error.reason}`)
    return oneLine(
      error.reason === undefined
        ? `${error.message} (${error.where})`
        : `${error.message} (${error.where}: ${error.reason})`
    )
  }
  if (isObject(error) && typeof error.message === "string" && error.message !== "") return oneLine(error.message)
  return oneLine(String(error))
}

/**
 * What a wrapping error shows of the failure it wraps: that failure's own first cause when it
 * wraps one too (so a text is not repeated), else the failure on one line.
 *
 * @internal
 */
export const causeSummary = (cause: unknown): string =>
  isWrapper(cause) && cause.firstCause !== undefined ? cause.firstCause : describe(cause)
