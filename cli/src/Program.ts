/**
 * The command line run over Node's services, as the executable starts it (`bin.ts`); the exit
 * code is the one `Main.run` decides (SIGINT and SIGTERM interrupt the command: 130).
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import * as Stdio from "effect/Stdio"
import * as Main from "./Main.ts"

const program = Effect.gen(function* () {
  const stdio = yield* Stdio.Stdio
  return yield* Main.run(yield* stdio.args)
}).pipe(Effect.provide(NodeServices.layer))

NodeRuntime.runMain(program, {
  disableErrorReporting: true,
  teardown: (exit, onExit) =>
    Exit.isSuccess(exit) && typeof exit.value === "number" ? onExit(exit.value) : Runtime.defaultTeardown(exit, onExit)
})
