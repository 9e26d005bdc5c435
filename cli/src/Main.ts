/**
 * The `lighthouse-effect` command: its tree, and the contract a script relies on. Exit 0 on
 * success; 1 on a failure, with the catalogue's message on stderr; 2 on bad usage (an unknown
 * command or flag, a missing argument, a missing secret); 130 when interrupted. With `--json` a
 * failure also puts `{"error":{"_tag","message"}}` on stdout. Help and version go to stdout;
 * usage errors and the help that goes with them to stderr, and so does every log line (the
 * library's warnings; `--log-level` sets which): stdout holds only the result or the content.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import { CliError, CliOutput, Command, TerminalCapabilities } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Stdio from "effect/Stdio"
import * as Client from "./Client.ts"
import * as Credentials from "./Credentials.ts"
import * as AccessControl from "./commands/AccessControl.ts"
import * as Dev from "./commands/Dev.ts"
import * as Doctor from "./commands/Doctor.ts"
import * as Download from "./commands/Download.ts"
import * as Files from "./commands/Files.ts"
import * as Ipns from "./commands/Ipns.ts"
import * as Payment from "./commands/Payment.ts"
import * as PendingKeys from "./commands/PendingKeys.ts"
import * as Upload from "./commands/Upload.ts"
import * as Wallet from "./commands/Wallet.ts"
import { failureJson, failureLine } from "./Errors.ts"
import * as Output from "./Output.ts"
import * as Progress from "./Progress.ts"

export const version = "0.1.0"

export const root = Command.make("lighthouse-effect").pipe(
  Command.withDescription(
    "Lighthouse storage from the command line: upload, download verified, manage keys and access. Every command takes --json; exit 0 ok, 1 failure, 2 bad usage."
  ),
  Command.withSubcommands([
    Upload.upload,
    Upload.uploadEncrypted,
    Upload.sync,
    PendingKeys.repair,
    Download.download,
    Download.cat,
    Download.verify,
    Files.ls,
    Files.info,
    Files.uploads,
    Files.deals,
    Files.proof,
    Files.usage,
    Files.remove,
    Files.walrusBlobs,
    Files.pin,
    Files.pdp,
    Ipns.keys,
    AccessControl.share,
    AccessControl.revoke,
    AccessControl.transfer,
    AccessControl.delegate,
    AccessControl.undelegate,
    AccessControl.conditions,
    Payment.quote,
    Payment.pay,
    Payment.x402Upload,
    Payment.x402Renew,
    Wallet.wallet,
    Wallet.apiKey,
    ...Wallet.providerNames,
    Dev.dev,
    Doctor.doctor
  ]),
  Command.withGlobalFlags([Output.Json, Progress.Mode, Credentials.ApiKeyFile, Credentials.PasswordFile]),
  // Every command's handler runs with the library's services (`quote` and `pay` over their own table).
  Command.provide(Client.layer)
)

/** Whether `--json` is among the flags (before `--`): known even when parsing fails. */
export const jsonRequested = (args: ReadonlyArray<string>): boolean => {
  const end = args.indexOf("--")
  const flags = end === -1 ? args : args.slice(0, end)
  return flags.some((arg) => arg === "--json" || arg === "--json=true")
}

/** Help and version on stdout; usage errors, and the help that goes with them, on stderr. */
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
          yield* Output.stderr(formatter.formatHelpDoc(event.helpDoc))
          return yield* Output.stderr(formatter.formatErrors(event.errors))
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

const messageOf = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error && typeof error.message === "string"
    ? error.message
    : String(error)

const tagOf = (error: unknown): string =>
  typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string"
    ? error._tag
    : "UnknownError"

/** How a failure is reported and which code it exits with. */
const classify = (error: unknown): Reported => {
  if (CliError.isCliError(error) && error._tag === "ShowHelp") {
    const first = error.errors[0]
    return first === undefined
      ? { code: 2, tag: "MissingCommand", message: "a command is needed (see --help)", printed: true }
      : { code: 2, tag: first._tag, message: error.errors.map(messageOf).join("; "), printed: true }
  }
  const tag = tagOf(error)
  return { code: tag === "UsageError" ? 2 : 1, tag, message: failureLine(error), printed: false }
}

const report = (error: unknown, json: boolean) =>
  Effect.gen(function* () {
    const reported = classify(error)
    if (!reported.printed) yield* Output.stderr(Output.printable(reported.message))
    if (json)
      yield* Output.stdout(
        Output.toJson({
          error: {
            ...failureJson(error, reported.tag, reported.message),
            ...PendingKeys.jsonDetails(error),
            ...Doctor.jsonDetails(error)
          }
        })
      )
    return reported.code
  })

/** Runs the command line on `args`; the result is the exit code (an interruption stays one). */
export const run = (args: ReadonlyArray<string>) =>
  Command.runWith(root, { version })(args).pipe(
    Effect.as(0),
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : report(Cause.squash(cause), jsonRequested(args))
    ),
    Effect.provide(Layer.mergeAll(presenterLayer, TerminalCapabilities.layer, Logger.layer([Output.logger])))
  )
