/**
 * Failures of the command line itself (not of the library): bad usage, a missing secret, a
 * refused overwrite. Each exits 2, as a bad invocation does; the library's catalogue errors exit 1.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

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
