/**
 * The served simulated network's own routes (`npm run serve`, `lighthouse-effect dev`), which the
 * provider does not have: the network's clock, answered on every host, and the API host's
 * reference page of this contract. They are for the developer's tools: a route under `/__dev/`
 * refuses a foreign `Origin` (`403`) and a body not sent as `application/json` (`415`), so a web
 * page the developer visits cannot move the clock.
 *
 * @since 0.2.0
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Schema from "effect/Schema"
import { Routes } from "../routes/Routes.ts"
import { apiError, apiRefusal } from "./Shapes.ts"

/** The clock of the served network. */
export const DevClockState = Schema.Struct({
  now: Schema.Number.annotate({ description: "milliseconds since the epoch" }),
  frozen: Schema.Boolean,
  offsetMs: Schema.Number.annotate({ description: "how far the clock is ahead of the one it started from" })
}).annotate({ identifier: "DevClockState" })

/** Moving the clock: forward by `advanceMs` ≥ 0, frozen or let run (freeze first, then advance). */
export const DevClockMove = Schema.Struct({
  advanceMs: Schema.optionalKey(Schema.Number),
  freeze: Schema.optionalKey(Schema.Boolean)
}).annotate({ identifier: "DevClockMove" })

/** A network served with a clock of its own (a `network` given to `serveMockNetwork`). */
const OwnClock = apiRefusal(404, "this network was served with its own clock: it cannot be moved")
/** A request from another origin than the server's own pages. */
const ForeignOrigin = apiError(403).annotate({
  description: "the development routes answer only this server's own pages and tools, not {origin}"
})

const at = Routes.dev

/** The clock every served host answers, and the reference page on the API host. */
export class Dev extends HttpApiGroup.make("dev")
  .add(
    HttpApiEndpoint.make(at.clock.method)("clock", at.clock.path, {
      success: DevClockState,
      error: [ForeignOrigin, OwnClock]
    }),
    HttpApiEndpoint.make(at.moveClock.method)("moveClock", at.moveClock.path, {
      payload: DevClockMove,
      success: DevClockState,
      error: [
        apiError(400).annotate({ description: "a body that is not `{ advanceMs?, freeze? }` with one of them" }),
        ForeignOrigin,
        OwnClock,
        apiRefusal(415, "the body must be JSON, sent as Content-Type: application/json")
      ]
    }),
    HttpApiEndpoint.make(at.docs.method)("docs", at.docs.path, {
      success: Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/html" })).annotate({
        description: "this contract's OpenAPI document rendered by Scalar"
      })
    })
  )
  // No host of the provider serves these: the OpenAPI document names no server for them.
  .annotateMerge(
    OpenApi.annotations({
      description:
        "The simulated network's own routes (`npm run serve`, `lighthouse-effect dev`), not the provider's: `/__dev/clock` on every served host, `/docs` on the API host."
    })
  ) {}
