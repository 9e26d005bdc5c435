/**
 * Failures of the command line itself (not of the library): bad usage, a missing secret, a
 * refused overwrite. Each exits 2, as a bad invocation does; the library's catalogue errors exit 1.
 * And how any failure is printed: one line on stderr, and the `error` value of `--json`.
 *
 * @since 0.1.0
 */
import type * as Config from "effect/Config"
import * as Schema from "effect/Schema"
import { Errors } from "lighthouse-effect"

/** The invocation cannot run as given; `message` says what to change. */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", {
  detail: Schema.String
}) {
  override get message() {
    return this.detail
  }
}

/** A secret is needed and there is no terminal to ask for it on. */
export const missingSecret = (what: string, flag: string, env: string) =>
  new UsageError({
    detail: `${what} is needed: pass ${flag} or set ${env} (there is no terminal to ask on)`
  })

/** A file would be replaced and `--force` was not given. */
export class WouldOverwrite extends Schema.TaggedError<WouldOverwrite>()("WouldOverwrite", {
  path: Schema.String
}) {
  override get message() {
    return `${this.path} exists: pass --force to replace it`
  }
}

/** A keystore that does not open: a wrong password, or not a v3 keystore. */
export class KeystoreError extends Schema.TaggedError<KeystoreError>()("KeystoreError", {
  detail: Schema.String
}) {
  override get message() {
    return this.detail
  }
}

interface Located {
  readonly method?: string | undefined
  readonly url: string
  readonly reason?: string | undefined
  readonly status?: number | undefined
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

/** An HTTP failure of the library (`NetworkError`, `RequestTimedOut`, `InvalidResponse`, status errors): it says where. */
const isLocated = (error: unknown): error is Located =>
  isObject(error) && typeof error.where === "string" && typeof error.url === "string"

const isConfigError = (error: unknown): error is Config.ConfigError =>
  isObject(error) && error._tag === "ConfigError" && isObject(error.cause)

/**
 * A `ConfigError` on one line, the variable first: `Invalid configuration: LIGHTHOUSE_API_URL:
 * Expected an http:// or https:// URL, got "not-a-url"` (Effect's text puts the path on a line of its own).
 */
const configurationLine = (error: Config.ConfigError): string => {
  const text = error.cause.message
  const at = /\n\s*at (\[.*\])\s*$/.exec(text)
  const path = at?.[1]?.replace(/^\["|"\]$/g, "").replace(/"\]\["/g, ".")
  const what = at === null ? text : text.slice(0, at.index)
  return Errors.describe(
    path === undefined ? `Invalid configuration: ${what}` : `Invalid configuration: ${path}: ${what}`
  )
}

/**
 * A failure as the command line prints it on stderr, one line: the catalogue's message and, for
 * an HTTP failure, the request and the cause (`Network error (POST http://127.0.0.1:8732/api/v0/add:
 * connect ECONNREFUSED)`); wrapping failures show the first cause in their message already.
 */
export const failureLine = (error: unknown): string =>
  isConfigError(error) ? configurationLine(error) : Errors.describe(error)

/**
 * A failure as `--json` prints it under `error`: `_tag` and the catalogue's `message` (`line`, the
 * printed line, for any other failure), and for an HTTP failure `method`, `url` (secrets
 * redacted), `cause` and `status` when there is one.
 */
export const failureJson = (error: unknown, tag: string, line: string): Record<string, unknown> => {
  if (!isLocated(error) || !isObject(error) || typeof error.message !== "string") return { _tag: tag, message: line }
  return {
    _tag: tag,
    message: error.message,
    ...(error.status === undefined ? {} : { status: error.status }),
    ...(error.method === undefined ? {} : { method: error.method }),
    url: error.url,
    ...(error.reason === undefined ? {} : { cause: error.reason })
  }
}
