/**
 * The flags that name where a secret comes from: `--api-key-file` and `--password-file`, global
 * settings of every command, and `secretFlag` for a command's own. Apart from `Credentials.ts`,
 * which reads them, so that `--help` loads them without what opens a wallet.
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import { Flag, GlobalFlag } from "effect/cli"
import type * as Redacted from "effect/Redacted"

/**
 * A secret as the command line got it: the file its flag names (`-`: stdin), or the value of the
 * variable the flag falls back to (`Flag.withFallbackConfig`).
 */
export type SecretInput =
  | { readonly _tag: "File"; readonly path: string }
  | { readonly _tag: "Value"; readonly value: Redacted.Redacted<string> }

/** `--NAME FILE`, else the variable `env`; neither: `None`. */
export const secretFlag = (name: string, env: string, description: string) =>
  Flag.String(name).pipe(
    Flag.map((path): SecretInput => ({ _tag: "File", path })),
    Flag.withFallbackConfig(Config.Redacted(env).pipe(Config.map((value): SecretInput => ({ _tag: "Value", value })))),
    Flag.withDescription(`${description} (- for stdin); or set ${env}`),
    Flag.optional
  )

/**
 * `--password-file FILE` (or `LIGHTHOUSE_WALLET_PASSWORD`): the wallet's password, for every
 * command that opens the wallet; a global setting, defined once.
 */
export const PasswordFile = GlobalFlag.Setting("password-file")({
  flag: secretFlag("password-file", "LIGHTHOUSE_WALLET_PASSWORD", "Read the wallet's password from FILE")
})

/** `--api-key-file FILE` (or `LIGHTHOUSE_API_KEY`): the API key, for every command that needs one. */
export const ApiKeyFile = GlobalFlag.Setting("api-key-file")({
  flag: secretFlag("api-key-file", "LIGHTHOUSE_API_KEY", "Read the API key from FILE")
})
