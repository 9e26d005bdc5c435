/**
 * Secrets, from where a script or a person can give them without putting them on argv: a file
 * named by a flag (`-` for stdin), an environment variable, or a prompt when both stdin and stdout
 * are terminals. Without any of them the command fails naming the flag and the variable; it
 * never waits for input nobody can type.
 *
 * - API key: `--api-key-file FILE`, `LIGHTHOUSE_API_KEY`, else the key `api-key` saved.
 * - Signer: `LIGHTHOUSE_PRIVATE_KEY`, else the stored keystore opened with its password
 *   (`--password-file FILE`, `LIGHTHOUSE_WALLET_PASSWORD`, or a prompt).
 *
 * `--api-key-file` and `--password-file` are global settings, defined once for every command in
 * `SecretFlags.ts` (loaded for `--help` without what opens a wallet).
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import { Prompt, TerminalCapabilities } from "effect/cli"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import { Signer } from "lighthouse-effect"
import { missingSecret, UsageError } from "./Errors.ts"
import * as Keystore from "./Keystore.ts"
import { ApiKeyFile, PasswordFile, type SecretInput } from "./SecretFlags.ts"
import * as Store from "./Store.ts"

export { ApiKeyFile, PasswordFile, type SecretInput, secretFlag } from "./SecretFlags.ts"

/** Where one secret may come from. */
export interface SecretSource {
  /** What it is, for messages ("The wallet's password"). */
  readonly what: string
  /** The flag naming a file with it (`-`: stdin), e.g. `password-file`. */
  readonly fileFlag: string
  readonly env: string
  readonly given: Option.Option<SecretInput>
}

/** The first line of stdin or of a file (a trailing newline is not part of a secret). */
const firstLine = (text: string) => text.replace(/\r?\n$/, "")

const readStdin = Effect.gen(function* () {
  const stdio = yield* Stdio.Stdio
  const decoder = new TextDecoder()
  return yield* stdio.stdin.pipe(
    Stream.runFold(
      () => "",
      (text, chunk: Uint8Array) => text + decoder.decode(chunk, { stream: true })
    )
  )
})

/** The text of `file`, or of stdin when it is `-`. */
export const fromFile = (file: string) =>
  Effect.gen(function* () {
    if (file === "-") return yield* readStdin
    const fs = yield* FileSystem.FileSystem
    return yield* fs.readFileString(file)
  })

/** Whether a person can be asked. */
export const canPrompt = Effect.gen(function* () {
  const terminal = yield* TerminalCapabilities.TerminalCapabilities
  return terminal.canPrompt
})

/** The secret as given (its file read), else `None`. */
const given = (input: Option.Option<SecretInput>) =>
  Effect.gen(function* () {
    if (Option.isNone(input)) return Option.none<Redacted.Redacted<string>>()
    const secret = input.value
    return Option.some(secret._tag === "Value" ? secret.value : Redacted.make(firstLine(yield* fromFile(secret.path))))
  })

/** The secret from its file flag or its variable, or a prompt; else a usage error naming both. */
export const secret = (source: SecretSource, options?: { readonly confirm?: boolean }) =>
  Effect.gen(function* () {
    const found = yield* given(source.given)
    if (Option.isSome(found)) return found.value
    if (!(yield* canPrompt)) return yield* missingSecret(source.what, `--${source.fileFlag} FILE`, source.env)
    const first = yield* Prompt.run(Prompt.Password({ message: `${source.what}:` }))
    if (options?.confirm !== true) return first
    const again = yield* Prompt.run(Prompt.Password({ message: "Again:" }))
    if (Redacted.value(first) !== Redacted.value(again))
      return yield* new UsageError({ detail: "the two entries differ" })
    return first
  })

/** The wallet's password: `--password-file`, `LIGHTHOUSE_WALLET_PASSWORD`, or a prompt. */
export const walletPassword = (options?: { readonly confirm?: boolean }) =>
  Effect.gen(function* () {
    const source = { what: "The wallet's password", fileFlag: "password-file", env: "LIGHTHOUSE_WALLET_PASSWORD" }
    return yield* secret({ ...source, given: yield* PasswordFile }, options)
  })

/** An API key from `input` (`--api-key-file` or `LIGHTHOUSE_API_KEY`), else the saved one. */
export const apiKeyFrom = (input: Option.Option<SecretInput>) =>
  Effect.gen(function* () {
    const found = yield* given(input)
    if (Option.isSome(found)) return found.value
    const saved = yield* Store.readConfig
    if (saved.apiKey !== undefined) return Redacted.make(saved.apiKey)
    return yield* new UsageError({
      detail:
        "An API key is needed: set LIGHTHOUSE_API_KEY, pass --api-key-file FILE, or run `lighthouse-effect api-key` to get one with your wallet"
    })
  })

/** The API key: `--api-key-file`, `LIGHTHOUSE_API_KEY`, else the saved one. */
export const apiKey = Effect.gen(function* () {
  return yield* apiKeyFrom(yield* ApiKeyFile)
})

/** The stored keystore opened with its password. */
export const openWallet = Effect.gen(function* () {
  const { keystore } = yield* Store.paths
  const text = yield* Store.readIfExists(keystore)
  if (Option.isNone(text))
    return yield* new UsageError({
      detail: "No wallet: run `lighthouse-effect wallet create` or `wallet import`, or set LIGHTHOUSE_PRIVATE_KEY"
    })
  return yield* Keystore.decrypt(text.value, yield* walletPassword())
})

/** The wallet's private key: `LIGHTHOUSE_PRIVATE_KEY`, else the stored keystore opened. */
export const privateKey = Effect.gen(function* () {
  const env = yield* Config.option(Config.Redacted("LIGHTHOUSE_PRIVATE_KEY"))
  return Option.isSome(env) ? env.value : (yield* openWallet).privateKey
})

/** Who signs: `LIGHTHOUSE_PRIVATE_KEY`, else the stored wallet. */
export const signer = Effect.flatMap(privateKey, Signer.makeFromPrivateKey)
