/**
 * `npm run serve`: the local network on 127.0.0.1 until Ctrl-C, for clients in any language. The
 * command line's `dev` with the chain on by default: one set of flags and one network for both
 * (`lighthouse-effect/mocks/dev`; scripts do not import the command line, so what the two share
 * lives in mocks). `--help` lists every flag; a bad one is one line, exit 2; each
 * taken port one line naming it and the flag that moves it, exit 1; SIGINT and SIGTERM stop it, exit 0.
 *
 * The network's clock (JWT, refresh and one-time token expiry, IPNS record validity) runs with the
 * wall clock and is moved over HTTP on any host: `GET /__dev/clock` reads it, `POST /__dev/clock`
 * with `{"advanceMs": N}` moves it forward, `{"freeze": true}` / `{"freeze": false}` stops and
 * restarts it (see `mocks/src/server/DevClock.ts`).
 */
import "../tooling/requireNode.mjs"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import { CliError, CliOutput, Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stdio from "effect/Stdio"
import { DevNetworkError, devFlags, serveDev } from "lighthouse-effect/mocks/dev"

const serve = Command.make(
  "npm run serve --",
  {
    ...devFlags({ chain: true }),
    json: Flag.Boolean("json").pipe(
      Flag.withDescription("Print the addresses as one JSON line instead of the banner"),
      Flag.withDefault(false)
    )
  },
  ({ json, ...flags }) =>
    Effect.scoped(
      Effect.gen(function* () {
        const network = yield* serveDev(flags)
        yield* Console.log(json ? JSON.stringify(network.json) : network.banner)
        return yield* Effect.never
      })
    )
).pipe(
  Command.withDescription(
    "The simulated Lighthouse network over HTTP (one port per host) and a local chain with the payment contract, until Ctrl-C"
  )
)

const hint = " (npm run serve -- --help lists the options)"

/** A command line that cannot be served: one line per error, on stderr (not the whole help). */
const presenter = CliOutput.layerPresenter({
  present: (event) =>
    event._tag === "InvalidInvocation"
      ? Effect.forEach(event.errors, (error) => Console.error(`${error.message}${hint}`))
      : CliOutput.defaultPresenter.present(event)
})

/** The exit code of a failure: 2 for a value that cannot be served (the CLI module printed it), else 1. */
const failed = (error: unknown) =>
  error instanceof DevNetworkError
    ? Effect.as(
        Effect.forEach(error.lines, (line) => Console.error(error.reason === "usage" ? `${line}${hint}` : line)),
        error.reason === "usage" ? 2 : 1
      )
    : CliError.isCliError(error)
      ? Effect.succeed(2)
      : Effect.as(Console.error(error instanceof Error ? error.message : String(error)), 1)

const program = Effect.gen(function* () {
  const args = yield* (yield* Stdio.Stdio).args
  return yield* Command.runWith(serve, { version: "0.1.0" })(args).pipe(Effect.as(0), Effect.catch(failed))
}).pipe(Effect.provide([presenter, NodeServices.layer]))

// Interrupted (Ctrl-C, SIGTERM): the network stopped, exit 0.
NodeRuntime.runMain(program, {
  disableErrorReporting: true,
  teardown: (exit, onExit) =>
    onExit(
      Exit.isSuccess(exit) && typeof exit.value === "number"
        ? exit.value
        : Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)
          ? 0
          : 1
    )
})
