/**
 * Secrets, from where a script or a person can give them without putting them on argv: a file
 * named by a flag (`-` for stdin), an environment variable, or a prompt when both stdin and stdout
 * are terminals. Without any of them the command fails naming the flag and the variable; it
 * never waits for input nobody can type.
 *
 * - API key: `LIGHTHOUSE_API_KEY`, `--api-key-file FILE`, else the key `api-key` saved.
 * - Signer: `LIGHTHOUSE_PRIVATE_KEY`, else the stored keystore opened with its password
 *   (`--password-file FILE`, `LIGHTHOUSE_WALLET_PASSWORD`, or a prompt).
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import { Flag, Prompt, TerminalCapabilities } from "effect/cli"
import { Signer } from "lighthouse-effect"
import { missingSecret, UsageError } from "./Errors.ts"
import * as Keystore from "./Keystore.ts"
import * as Store from "./Store.ts"

/** Where one secret may come from. */
export interface SecretSource {
  /** What it is, for messages ("The wallet's password"). */
  readonly what: string
  /** The flag naming a file with it (`-`: stdin), e.g. `password-file`. */
  readonly fileFlag: string
  readonly file: Option.Option<string>
  readonly env: string
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

/** The secret from its file flag, its variable, or a prompt; else a usage error naming both. */
export const secret = (source: SecretSource, options?: { readonly confirm?: boolean }) =>
  Effect.gen(function* () {
    if (Option.isSome(source.file)) return Redacted.make(firstLine(yield* fromFile(source.file.value)))
    const env = yield* Config.option(Config.Redacted(source.env))
    if (Option.isSome(env)) return env.value
    if (!(yield* canPrompt)) return yield* missingSecret(source.what, `--${source.fileFlag} FILE`, source.env)
    const first = yield* Prompt.run(Prompt.Password({ message: `${source.what}:` }))
    if (options?.confirm !== true) return first
    const again = yield* Prompt.run(Prompt.Password({ message: "Again:" }))
    if (Redacted.value(first) !== Redacted.value(again))
      return yield* new UsageError({ detail: "the two entries differ" })
    return first
  })

/** `--password-file FILE`: the wallet's password from a file (`-`: stdin). */
export const passwordFile = Flag.String("password-file").pipe(
  Flag.withDescription("Read the wallet's password from FILE (- for stdin); or set LIGHTHOUSE_WALLET_PASSWORD"),
  Flag.optional
)

export type PasswordFlag = Option.Option<string>

/** `--api-key-file FILE`: the API key from a file (`-`: stdin). */
export const apiKeyFile = Flag.String("api-key-file").pipe(
  Flag.withDescription("Read the API key from FILE (- for stdin); or set LIGHTHOUSE_API_KEY"),
  Flag.optional
)

export const walletPassword = (file: Option.Option<string>, options?: { readonly confirm?: boolean }) =>
  secret({ what: "The wallet's password", fileFlag: "password-file", file, env: "LIGHTHOUSE_WALLET_PASSWORD" }, options)

/** The API key: the variable, the file flag, else the saved one. */
export const apiKey = (file: Option.Option<string>) =>
  Effect.gen(function* () {
    if (Option.isSome(file)) return Redacted.make(firstLine(yield* fromFile(file.value)))
    const env = yield* Config.option(Config.Redacted("LIGHTHOUSE_API_KEY"))
    if (Option.isSome(env)) return env.value
    const saved = yield* Store.readConfig
    if (saved.apiKey !== undefined) return Redacted.make(saved.apiKey)
    return yield* new UsageError({
      detail:
        "An API key is needed: set LIGHTHOUSE_API_KEY, pass --api-key-file FILE, or run `lighthouse-effect api-key` to get one with your wallet"
    })
  })

/** The stored keystore opened with its password. */
export const openWallet = (password: Option.Option<string>) =>
  Effect.gen(function* () {
    const { keystore } = yield* Store.paths
    const text = yield* Store.readIfExists(keystore)
    if (Option.isNone(text))
      return yield* new UsageError({
        detail: "No wallet: run `lighthouse-effect wallet create` or `wallet import`, or set LIGHTHOUSE_PRIVATE_KEY"
      })
    return yield* Keystore.decrypt(text.value, yield* walletPassword(password))
  })

/** The wallet's private key: `LIGHTHOUSE_PRIVATE_KEY`, else the stored keystore opened. */
export const privateKey = (password: Option.Option<string>) =>
  Effect.gen(function* () {
    const env = yield* Config.option(Config.Redacted("LIGHTHOUSE_PRIVATE_KEY"))
    return Option.isSome(env) ? env.value : (yield* openWallet(password)).privateKey
  })

/** Who signs: `LIGHTHOUSE_PRIVATE_KEY`, else the stored wallet. */
export const signer = (password: Option.Option<string>) =>
  Effect.flatMap(privateKey(password), Signer.makeFromPrivateKey)
