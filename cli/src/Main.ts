/**
 * The `lighthouse-effect` command: its tree, and the contract a script relies on. Exit 0 on
 * success; 1 on a failure, with the catalogue's message on stderr; 2 on bad usage (an unknown
 * command or flag, a missing argument, a missing secret); 130 when interrupted. With `--json` a
 * failure also puts `{"error":{"_tag","message"}}` on stdout. Help and version go to stdout;
 * a usage error (its line and a hint to `--help`) to stderr, and so does every log line (the
 * library's warnings; `--log-level` sets which, `--quiet` silences them): stdout holds only the
 * result or the content. A reader closing stdout (`… | head`) ends the command quietly with 0.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import { CliError, CliOutput, Command, TerminalCapabilities } from "effect/cli"
import * as Effect from "effect/Effect"
import { identity } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import * as Stdio from "effect/Stdio"
import * as Completions from "./Completions.ts"
import * as Output from "./Output.ts"
import * as Progress from "./Progress.ts"
import * as SecretFlags from "./SecretFlags.ts"

export const version = "0.1.0"

/**
 * The library's services, loaded with the first command that runs (not for help or a usage error):
 * every service but `Payment`, so a command that does not pay never loads viem's chains.
 */
const services = Layer.unwrap(Effect.promise(() => import("./Client.ts")).pipe(Effect.map((client) => client.layer)))

/** Every service, `Payment` included, for the x402 commands (`quote` and `pay` bring their own table's). */
const paying = Layer.unwrap(
  Effect.promise(() => import("./Client.ts")).pipe(Effect.map((client) => client.layerWith({})))
)

/**
 * Every command under the root, each loaded by `import()` only when it runs: a command's module
 * brings the library's services it calls (and `dev` the whole simulated network), which `--help`
 * and a mistyped command must not wait for. `line` is its line in the root's help (its
 * `shortDescription`); `cli/test/Manners.test.ts` checks each entry against the command it loads.
 */
export const commands = [
  {
    name: "upload",
    line: "Uploads a file, a folder or stdin; prints the CID",
    load: () => import("./commands/Upload.ts").then((m) => m.upload)
  },
  {
    name: "upload-encrypted",
    line: "Same as upload --encrypted (the provider's command name)",
    load: () => import("./commands/Upload.ts").then((m) => m.uploadEncrypted)
  },
  {
    name: "sync",
    line: "Keeps a folder stored: sends only what changed, prints the snapshot's CID",
    load: () => import("./commands/Upload.ts").then((m) => m.sync)
  },
  {
    name: "repair",
    line: "Finishes encrypted uploads a crash, Ctrl-C or a key-node outage left",
    load: () => import("./commands/PendingKeys.ts").then((m) => m.repair)
  },
  {
    name: "download",
    alias: "decrypt-file",
    line: "Downloads content checked against its CID; --decrypt for encrypted files",
    load: () => import("./commands/Download.ts").then((m) => m.download)
  },
  {
    name: "cat",
    line: "Writes content to stdout, checked against its CID",
    load: () => import("./commands/Download.ts").then((m) => m.cat)
  },
  {
    name: "verify",
    line: "Fetches the gateway's CAR of a CID and checks every block",
    load: () => import("./commands/Download.ts").then((m) => m.verify)
  },
  {
    name: "ls",
    line: "Lists a folder (name, type, size, CID) from a verified CAR",
    load: () => import("./commands/Files.ts").then((m) => m.ls)
  },
  {
    name: "info",
    line: "A file's record: name, size, type, whether it is encrypted",
    load: () => import("./commands/Files.ts").then((m) => m.info)
  },
  {
    name: "uploads",
    alias: "get-uploads",
    line: "Every upload of the account, newest first",
    load: () => import("./commands/Files.ts").then((m) => m.uploads)
  },
  {
    name: "deals",
    alias: "deal-status",
    line: "The Filecoin deals of a CID",
    load: () => import("./commands/Files.ts").then((m) => m.deals)
  },
  {
    name: "proof",
    line: "The PoDSI (proof of data segment inclusion) of a CID's deals",
    load: () => import("./commands/Files.ts").then((m) => m.proof)
  },
  {
    name: "usage",
    alias: "balance",
    line: "The account's data usage and limit",
    load: () => import("./commands/Files.ts").then((m) => m.usage)
  },
  {
    name: "delete",
    alias: "delete-file",
    line: "Deletes an upload record by its id",
    load: () => import("./commands/Files.ts").then((m) => m.remove)
  },
  {
    name: "walrus-blobs",
    line: "The Walrus blob ids of a CID stored on Walrus",
    load: () => import("./commands/Files.ts").then((m) => m.walrusBlobs)
  },
  {
    name: "pin",
    line: "Pins content already on IPFS to the account",
    load: () => import("./commands/Files.ts").then((m) => m.pin)
  },
  {
    name: "pdp",
    line: "PDP storage deals: request, status, wait",
    load: () => import("./commands/Files.ts").then((m) => m.pdp)
  },
  {
    name: "keys",
    alias: "ipns",
    line: "IPNS keys: generate, publish, list, remove",
    load: () => import("./commands/Ipns.ts").then((m) => m.keys)
  },
  {
    name: "share",
    alias: "share-file",
    line: "Lets an address recover an encrypted file's key",
    load: () => import("./commands/AccessControl.ts").then((m) => m.share)
  },
  {
    name: "revoke",
    alias: "revoke-access",
    line: "Takes back an address's access to a file",
    load: () => import("./commands/AccessControl.ts").then((m) => m.revoke)
  },
  {
    name: "transfer",
    line: "Makes another address the owner of an encrypted file",
    load: () => import("./commands/AccessControl.ts").then((m) => m.transfer)
  },
  {
    name: "delegate",
    line: "Lets addresses open every encrypted file of the wallet; replaces the delegates",
    load: () => import("./commands/AccessControl.ts").then((m) => m.delegate)
  },
  {
    name: "undelegate",
    line: "Revokes every delegate of the wallet",
    load: () => import("./commands/AccessControl.ts").then((m) => m.undelegate)
  },
  {
    name: "conditions",
    line: "Access conditions of an encrypted file: apply, update, show",
    load: () => import("./commands/AccessControl.ts").then((m) => m.conditions)
  },
  {
    name: "quote",
    line: "The price of storing files, folders or sizes as one upload",
    load: () => import("./commands/Payment.ts").then((m) => m.quote)
  },
  {
    name: "pay",
    line: "Pays the network's payment contract",
    load: () => import("./commands/Payment.ts").then((m) => m.pay)
  },
  {
    name: "x402-upload",
    line: "Uploads a file paid per upload over x402 (USDC), no API key",
    load: () => import("./commands/Payment.ts").then((m) => Command.provide(m.x402Upload, paying))
  },
  {
    name: "x402-renew",
    line: "Adds a year of Walrus storage to an x402 upload, paid over x402",
    load: () => import("./commands/Payment.ts").then((m) => Command.provide(m.x402Renew, paying))
  },
  {
    name: "wallet",
    line: "The wallet in the config directory (with no subcommand: its address)",
    load: () => import("./commands/Wallet.ts").then((m) => m.wallet)
  },
  {
    name: "api-key",
    line: "Gets an API key by signing with the wallet and saves it (mode 0600)",
    load: () => import("./commands/Wallet.ts").then((m) => m.apiKey)
  },
  {
    name: "create-wallet",
    line: "= wallet create",
    load: () => import("./commands/Wallet.ts").then((m) => m.providerNames[0])
  },
  {
    name: "import-wallet",
    line: "= wallet import",
    load: () => import("./commands/Wallet.ts").then((m) => m.providerNames[1])
  },
  {
    name: "wallet-forget",
    line: "= wallet forget",
    load: () => import("./commands/Wallet.ts").then((m) => m.providerNames[2])
  },
  {
    name: "reset-password",
    line: "= wallet password",
    load: () => import("./commands/Wallet.ts").then((m) => m.providerNames[3])
  },
  {
    name: "dev",
    line: "Serves the local network (the library's mock of every Lighthouse host) until Ctrl-C",
    load: () => import("./commands/Dev.ts").then((m) => m.dev)
  },
  {
    name: "doctor",
    line: "Probes the hosts read-only against the declared contract",
    load: () => import("./commands/Doctor.ts").then((m) => m.doctor)
  }
] as const

type Entry = (typeof commands)[number]

/** Any command of the table, as loaded (the union of their types: errors and services checked). */
export type Loaded = Awaited<ReturnType<Entry["load"]>>

/** The root over `subcommands`, with the global flags and the services every handler runs with. */
const rootOf = (subcommands: ReadonlyArray<Loaded>) =>
  Command.make("lighthouse-effect").pipe(
    Command.withDescription(
      "Lighthouse storage from the command line: upload, download verified, manage keys and access. Every command takes --json; exit 0 ok, 1 failure, 2 bad usage."
    ),
    Command.withSubcommands(subcommands),
    Command.withGlobalFlags([
      Output.Json,
      Output.Quiet,
      Progress.Mode,
      SecretFlags.ApiKeyFile,
      SecretFlags.PasswordFile
    ]),
    // Every command's handler runs with the library's services (`quote` and `pay` over their own table).
    Command.provide(services)
  )

/** Every command loaded: the whole tree (completions and the wizard walk it). */
export const fullRoot = () => Promise.all(commands.map((entry) => entry.load())).then(rootOf)

/**
 * The root's help without loading any command: each command by its name, alias and line. These
 * commands only name the real ones (hence the cast: they never run); `rootFor` loads the real one
 * whenever it is named.
 */
const listing = (): ReadonlyArray<Loaded> =>
  commands.map((entry) => {
    const named = Command.make(entry.name).pipe(Command.withShortDescription(entry.line))
    return ("alias" in entry ? named.pipe(Command.withAlias(entry.alias)) : named) as unknown as Loaded
  })

/** Global flags that take a value (`--progress ndjson`), so that the value is not read as a command. */
const valueFlags = new Set(["--completions", "--log-level", "--progress", "--api-key-file", "--password-file"])

/** The command `args` names: the first word that is no flag nor a flag's value, before `--`. */
export const commandWord = (args: ReadonlyArray<string>): string | undefined => {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ""
    if (arg === "--") return undefined
    if (!arg.startsWith("-")) return arg
    if (valueFlags.has(arg)) i += 1
  }
  return undefined
}

/**
 * The root to run `args` with: only the command they name, loaded; the whole tree for
 * `--completions` and `--wizard`; else the listing (help, version, a usage error).
 */
const rootFor = (args: ReadonlyArray<string>) =>
  Effect.promise(async () => {
    const flags = args.slice(0, args.includes("--") ? args.indexOf("--") : args.length)
    if (flags.some((arg) => arg === "--wizard" || arg === "--completions" || arg.startsWith("--completions=")))
      return fullRoot()
    const word = commandWord(args)
    const entry = commands.find((entry) => entry.name === word || ("alias" in entry && entry.alias === word))
    return rootOf(entry === undefined ? listing() : [await entry.load()])
  })

/** Whether `--json` is among the flags (before `--`): known even when parsing fails. */
export const jsonRequested = (args: ReadonlyArray<string>): boolean => {
  const end = args.indexOf("--")
  const flags = end === -1 ? args : args.slice(0, end)
  return flags.some((arg) => arg === "--json" || arg === "--json=true")
}

/**
 * A usage error on one line: its message's first line, and what the CLI module suggests
 * (`Unknown subcommand "uplod" for "lighthouse-effect" (did you mean upload?)`).
 */
const usageLine = (error: CliError.NonShowHelpErrors): string => {
  const first = error.message.split("\n", 1)[0] ?? ""
  const suggestions = "suggestions" in error ? error.suggestions : []
  return suggestions.length === 0 ? first : `${first} (did you mean ${suggestions.join(" or ")}?)`
}

/**
 * Help and version on stdout. A usage error on stderr, one line each and a hint to `--help` (as
 * git and gh do), not the whole help before it.
 */
const presenter = (stdio: Stdio.Stdio): CliOutput.Presenter => ({
  present: (event) =>
    Effect.gen(function* () {
      const formatter = yield* CliOutput.Formatter
      switch (event._tag) {
        case "Help":
          return yield* (event.reason === "Requested" ? Output.stdout : Output.stderr)(
            formatter.formatHelpDoc(event.helpDoc)
          )
        case "InvalidInvocation":
          for (const error of event.errors) yield* Output.stderr(usageLine(error))
          return yield* Output.stderr(`Run '${event.commandPath.join(" ")} --help' for usage.`)
        case "Version":
          return yield* Output.stdout(formatter.formatVersion(event.name, event.version))
      }
    }).pipe(Effect.provideService(Stdio.Stdio, stdio))
})

const presenterLayer = Layer.effect(CliOutput.Presenter)(
  Effect.gen(function* () {
    return presenter(yield* Stdio.Stdio)
  })
)

interface Reported {
  readonly code: number
  readonly tag: string
  readonly message: string
  /** Already on stderr (the CLI module's own rendering of a usage error). */
  readonly printed: boolean
}

const tagOf = (error: unknown): string =>
  typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string"
    ? error._tag
    : "UnknownError"

/** How a failure is reported and which code it exits with. */
const classify = (error: unknown, failureLine: (error: unknown) => string): Reported => {
  if (CliError.isCliError(error) && error._tag === "ShowHelp") {
    const first = error.errors[0]
    return first === undefined
      ? { code: 2, tag: "MissingCommand", message: "a command is needed (see --help)", printed: true }
      : { code: 2, tag: first._tag, message: error.errors.map(usageLine).join("; "), printed: true }
  }
  const tag = tagOf(error)
  return { code: tag === "UsageError" ? 2 : 1, tag, message: failureLine(error), printed: false }
}

const report = (error: unknown, json: boolean) =>
  Effect.gen(function* () {
    // Loaded on a failure only: the library's catalogue of messages and the journal's details.
    const { failureJson, failureLine } = yield* Effect.promise(() => import("./Errors.ts"))
    const PendingKeys = yield* Effect.promise(() => import("./commands/PendingKeys.ts"))
    // The doctor's report rides on its own failure only; its module (the contract) loads for that.
    const doctorDetails =
      isObject(error) && error._tag === "NetworkDiffers"
        ? (yield* Effect.promise(() => import("./commands/Doctor.ts"))).jsonDetails(error)
        : {}
    const reported = classify(error, failureLine)
    if (!reported.printed) yield* Output.stderr(Output.printable(reported.message))
    if (json)
      yield* Output.stdout(
        Output.toJson({
          error: {
            ...failureJson(error, reported.tag, reported.message),
            ...PendingKeys.jsonDetails(error),
            ...doctorDetails
          }
        })
      )
    return reported.code
  })

/**
 * Whether `error` is stdout closed by its reader (`… | head`): `Stdio`'s write failing with `EPIPE`.
 * Nothing more is wanted then; the command ends quietly with 0, as `git log | head` does.
 */
export const isBrokenPipe = (error: unknown): boolean => {
  if (!isObject(error) || error._tag !== "PlatformError" || !isObject(error.reason)) return false
  const { module, method, cause } = error.reason
  return module === "Stdio" && method === "stdout" && isObject(cause) && cause.code === "EPIPE"
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

/** Runs the command line on `args`; the result is the exit code (an interruption stays one). */
/**
 * `--wizard` asks its questions on a terminal; without one it would wait for answers nobody
 * types (or read a script's stdin as answers), so it is refused as bad usage.
 */
const wizardWithoutTerminal = (args: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const flags = args.slice(0, args.includes("--") ? args.indexOf("--") : args.length)
    if (!flags.includes("--wizard") || (yield* TerminalCapabilities.TerminalCapabilities).canPrompt) return
    const { UsageError } = yield* Effect.promise(() => import("./Errors.ts"))
    return yield* new UsageError({ detail: "--wizard asks its questions on a terminal, and there is none here" })
  })

export const run = (args: ReadonlyArray<string>) =>
  Effect.andThen(wizardWithoutTerminal(args), rootFor(args)).pipe(
    Effect.flatMap((root) => {
      const shell = Completions.requested(args)
      return shell === undefined ? Command.runWith(root, { version })(args) : Completions.print(root, shell)
    }),
    Effect.as(0),
    Effect.catchCause((cause) => {
      if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
      const error = Cause.squash(cause)
      return isBrokenPipe(error) ? Effect.succeed(0) : report(error, jsonRequested(args))
    }),
    Effect.provide(Layer.mergeAll(presenterLayer, TerminalCapabilities.layer, Logger.layer([Output.logger]))),
    // --quiet: the library's warnings are not printed either (an explicit --log-level still rules).
    Output.quietRequested(args) ? Effect.provideService(References.MinimumLogLevel, "Error") : identity
  )
