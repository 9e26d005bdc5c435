/**
 * `dev`: the library's local network (the one `npm run serve` starts, with the same flags) until
 * Ctrl-C: the mock of every Lighthouse host, extra gateways with faults (`--gateway`), and with
 * `--chain` a local chain with the payment contract (Hardhat must be installed for it). When
 * ready it prints where each host listens and the `LIGHTHOUSE_*` variables that point this
 * command line at it (`--json`: one JSON value, the variables under `env`).
 *
 * @since 0.1.0
 */

import { Command } from "effect/cli"
import * as Effect from "effect/Effect"
import { devFlags, serveDev } from "lighthouse-effect/mocks/dev"
import { UsageError } from "../Errors.ts"
import * as Output from "../Output.ts"

export const dev = Command.make("dev", devFlags({ chain: false }), (flags) =>
  Effect.scoped(
    Effect.gen(function* () {
      const network = yield* serveDev(flags).pipe(
        Effect.catchIf(
          (error) => error.reason === "usage",
          (error) => Effect.fail(new UsageError({ detail: error.message }))
        )
      )
      yield* Output.result(network.json, network.banner.split("\n"))
      return yield* Effect.never
    })
  )
).pipe(
  Command.withDescription("Serves the local network (the library's mock of every Lighthouse host) until Ctrl-C"),
  Command.withExamples([
    { command: "lighthouse-effect dev --free-ports --json", description: "Free ports; the variables under env" },
    {
      command: "lighthouse-effect dev --chain --gateway slow=200 --gateway honest",
      description: "With a chain for payments and two more gateways, one slow"
    }
  ])
)
