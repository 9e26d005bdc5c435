/**
 * The wallet: a v3 keystore in the config directory (`wallet create`, `import`, `show`,
 * `forget`, `password`), and `api-key`, which signs the API's message with it and saves the key
 * it gets. A private key never comes from argv: it comes from a file (`-`: stdin),
 * `LIGHTHOUSE_PRIVATE_KEY`, or a prompt; it is never printed.
 *
 * @since 0.1.0
 */

import { Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { Address, Auth } from "lighthouse-effect"
import { generatePrivateKey } from "viem/accounts"
import * as Credentials from "../Credentials.ts"
import { UsageError, WouldOverwrite } from "../Errors.ts"
import * as Keystore from "../Keystore.ts"
import * as Output from "../Output.ts"
import * as Store from "../Store.ts"

const force = Flag.Boolean("force").pipe(Flag.withDescription("Replace the stored wallet"), Flag.withDefault(false))

/** Fails unless the keystore slot is free or `--force` was given. */
const ensureFree = (force: boolean) =>
  Effect.gen(function* () {
    const { keystore } = yield* Store.paths
    if (!force && (yield* (yield* FileSystem.FileSystem).exists(keystore)))
      return yield* new WouldOverwrite({ path: keystore })
    return keystore
  })

/** Encrypts `privateKey` under a new password and stores the keystore. */
const store = (privateKey: Redacted.Redacted<`0x${string}`>, force: boolean) =>
  Effect.gen(function* () {
    const target = yield* ensureFree(force)
    const password = yield* Credentials.walletPassword({ confirm: true })
    const keystore = yield* Keystore.encrypt(privateKey, password)
    yield* Store.writeSecretFile(target, `${JSON.stringify(keystore, null, 2)}\n`)
    const address = `0x${keystore.address}`
    yield* Output.result({ address, keystore: target }, [address])
  })

const createFlags = { force }
const createWalletKey = ({ force }: Command.Command.Config.Infer<typeof createFlags>) =>
  store(Redacted.make(generatePrivateKey(), { label: "PrivateKey" }), force)
const create = Command.make("create", createFlags, createWalletKey).pipe(
  Command.withDescription("Creates a wallet: a new key in a v3 keystore (scrypt), mode 0600")
)

const privateKeyFile = Credentials.secretFlag(
  "private-key-file",
  "LIGHTHOUSE_PRIVATE_KEY",
  "Read the private key from FILE"
)

const keystoreFile = Flag.String("keystore").pipe(
  Flag.withDescription("Import a v3 keystore file (geth, MetaMask, the provider's); it is checked with its password"),
  Flag.optional
)

const fromProvider = Flag.Boolean("from-provider").pipe(
  Flag.withDescription("Import the wallet (and API key) the provider's lighthouse-web3 CLI stored"),
  Flag.withDefault(false)
)

/** A keystore's text, checked to open with the password, stored as is. */
const importKeystore = (text: string, force: boolean) =>
  Effect.gen(function* () {
    const target = yield* ensureFree(force)
    const opened = yield* Keystore.decrypt(text, yield* Credentials.walletPassword())
    yield* Store.writeSecretFile(target, text.endsWith("\n") ? text : `${text}\n`)
    return { address: opened.address, keystore: target }
  })

/** What the provider's CLI keeps (`conf`'s store of `@lighthouse-web3/sdk`). */
const ProviderConfig = Schema.Struct({
  LIGHTHOUSE_GLOBAL_WALLET: Schema.optionalKey(Schema.String),
  LIGHTHOUSE_GLOBAL_API_KEY: Schema.optionalKey(Schema.String)
})

const importFromProvider = (force: boolean) =>
  Effect.gen(function* () {
    const path = yield* Path.Path
    const file = path.join(yield* Store.configHome, "@lighthouse-web3", "sdk-nodejs", "config.json")
    const text = yield* Store.readIfExists(file)
    if (Option.isNone(text)) return yield* new UsageError({ detail: `no provider CLI configuration at ${file}` })
    const config = yield* Schema.decodeUnknownEffect(Schema.fromJsonString(ProviderConfig))(text.value)
    if (config.LIGHTHOUSE_GLOBAL_WALLET === undefined)
      return yield* new UsageError({ detail: `the provider CLI's configuration (${file}) holds no wallet` })
    const imported = yield* importKeystore(config.LIGHTHOUSE_GLOBAL_WALLET, force)
    if (config.LIGHTHOUSE_GLOBAL_API_KEY !== undefined)
      yield* Store.updateConfig({ apiKey: config.LIGHTHOUSE_GLOBAL_API_KEY })
    return { ...imported, apiKey: config.LIGHTHOUSE_GLOBAL_API_KEY !== undefined }
  })

const importFlags = { privateKeyFile, keystoreFile, fromProvider, force }
const importWalletKey = (flags: Command.Command.Config.Infer<typeof importFlags>) =>
  Effect.gen(function* () {
    if (flags.fromProvider) {
      const imported = yield* importFromProvider(flags.force)
      return yield* Output.result(imported, [imported.address])
    }
    if (Option.isSome(flags.keystoreFile)) {
      const text = yield* (yield* FileSystem.FileSystem).readFileString(flags.keystoreFile.value)
      const imported = yield* importKeystore(text, flags.force)
      return yield* Output.result(imported, [imported.address])
    }
    const source = {
      what: "The private key",
      fileFlag: "private-key-file",
      env: "LIGHTHOUSE_PRIVATE_KEY",
      given: flags.privateKeyFile
    }
    const key = yield* Address.parsePrivateKey(yield* Credentials.secret(source))
    yield* store(key, flags.force)
  })
const importCommand = Command.make("import", importFlags, importWalletKey).pipe(
  Command.withDescription("Imports a private key (from a file, stdin, the environment or a prompt) or a keystore")
)

const readAddress = Effect.gen(function* () {
  const { keystore } = yield* Store.paths
  const text = yield* Store.readIfExists(keystore)
  if (Option.isNone(text)) return yield* new UsageError({ detail: "No wallet: run `lighthouse-effect wallet create`" })
  const parsed = yield* Schema.decodeUnknownEffect(Schema.fromJsonString(Schema.Struct({ address: Schema.String })))(
    text.value
  )
  return { address: `0x${parsed.address.replace(/^0x/, "").toLowerCase()}`, keystore }
})

const show = Command.make("show", {}, () =>
  Effect.gen(function* () {
    const wallet = yield* readAddress
    yield* Output.result(wallet, [wallet.address])
  })
).pipe(Command.withDescription("The stored wallet's address (no password needed)"))

const forgetFlags = {
  yes: Flag.Boolean("yes").pipe(Flag.withAlias("y"), Flag.withDescription("Confirm"), Flag.withDefault(false))
}
const forgetWallet = ({ yes }: Command.Command.Config.Infer<typeof forgetFlags>) =>
  Effect.gen(function* () {
    const wallet = yield* readAddress
    if (!yes)
      return yield* new UsageError({
        detail: `forgetting ${wallet.address} deletes its keystore: pass --yes to confirm (keep a backup of ${wallet.keystore})`
      })
    yield* (yield* FileSystem.FileSystem).remove(wallet.keystore)
    yield* Output.result({ forgotten: wallet.address }, [`forgot ${wallet.address}`])
  })
const forget = Command.make("forget", forgetFlags, forgetWallet).pipe(
  Command.withDescription("Deletes the stored keystore")
)

const passwordFlags = {
  newPasswordFile: Credentials.secretFlag(
    "new-password-file",
    "LIGHTHOUSE_NEW_WALLET_PASSWORD",
    "Read the new password from FILE"
  )
}
const changePassword = ({ newPasswordFile }: Command.Command.Config.Infer<typeof passwordFlags>) =>
  Effect.gen(function* () {
    const opened = yield* Credentials.openWallet
    const source = {
      what: "The new password",
      fileFlag: "new-password-file",
      env: "LIGHTHOUSE_NEW_WALLET_PASSWORD",
      given: newPasswordFile
    }
    const keystore = yield* Keystore.encrypt(opened.privateKey, yield* Credentials.secret(source, { confirm: true }))
    const { keystore: target } = yield* Store.paths
    yield* Store.writeSecretFile(target, `${JSON.stringify(keystore, null, 2)}\n`)
    yield* Output.result({ address: opened.address, keystore: target }, [`new password for ${opened.address}`])
  })
const password = Command.make("password", passwordFlags, changePassword).pipe(
  Command.withDescription("Re-encrypts the keystore under a new password")
)

export const wallet = Command.make("wallet", {}, () =>
  Effect.gen(function* () {
    const wallet = yield* readAddress
    yield* Output.result(wallet, [wallet.address])
  })
).pipe(
  Command.withDescription("The wallet in the config directory (with no subcommand: its address)"),
  Command.withSubcommands([create, importCommand, show, forget, password])
)

/** The provider's top-level names for `wallet create`, `wallet import` and `wallet forget`. */
export const providerNames = [
  Command.make("create-wallet", createFlags, createWalletKey).pipe(Command.withDescription("= wallet create")),
  Command.make("import-wallet", importFlags, importWalletKey).pipe(Command.withDescription("= wallet import")),
  Command.make("wallet-forget", forgetFlags, forgetWallet).pipe(Command.withDescription("= wallet forget")),
  Command.make("reset-password", passwordFlags, changePassword).pipe(Command.withDescription("= wallet password"))
] as const

/** The key `api-key` saved, printed (`true`); none saved: `false`. No wallet, no request. */
const printSaved = Effect.gen(function* () {
  const saved = yield* Store.readConfig
  if (saved.apiKey === undefined) return false
  const { config } = yield* Store.paths
  yield* Output.result({ apiKey: saved.apiKey, saved: config }, [saved.apiKey])
  return true
})

export const apiKey = Command.make(
  "api-key",
  {
    print: Flag.Boolean("print").pipe(
      Flag.withDescription("Print the saved API key (none saved yet: get one, save it and print it)"),
      Flag.withDefault(false)
    ),
    importFile: Flag.String("import-file").pipe(
      Flag.withDescription("Save the API key read from FILE (- for stdin) instead of getting a new one"),
      Flag.optional
    )
  },
  ({ print, importFile }) =>
    Effect.gen(function* () {
      if (print && Option.isNone(importFile) && (yield* printSaved)) return
      const imported = Option.isSome(importFile)
        ? yield* Credentials.apiKeyFrom(Option.some({ _tag: "File", path: importFile.value }))
        : undefined
      const signer = imported === undefined ? yield* Credentials.signer : undefined
      const key = imported ?? (yield* Auth.Auth.use((auth) => auth.createApiKey(signer!)))
      const saved = yield* Store.updateConfig({ apiKey: Redacted.value(key) })
      const result = {
        ...(signer === undefined ? {} : { address: signer.address }),
        saved,
        ...(print ? { apiKey: Redacted.value(key) } : {})
      }
      yield* Output.result(result, print ? [Redacted.value(key)] : [`API key saved to ${saved}`])
    })
).pipe(
  Command.withDescription(
    "Gets an API key by signing with the wallet and saves it (mode 0600); --print shows the saved one"
  ),
  Command.withExamples([
    {
      command: "LIGHTHOUSE_WALLET_PASSWORD=… lighthouse-effect api-key --json",
      description: "Get and save a new key"
    },
    { command: "lighthouse-effect api-key --print", description: "The saved key, on stdout (nothing signed)" }
  ])
)
