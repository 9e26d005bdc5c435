/**
 * The scenario in a Cloudflare worker (workerd, no Node compatibility), over `Lighthouse.layer`: the
 * runner POSTs the input (JSON) and gets the report, or a 500 with the failure's text.
 */
import { Effect } from "effect"
import { Lighthouse } from "lighthouse-effect"
import { layerOptions, type ScenarioInput, scenario } from "./scenario.ts"

const describe = (error: unknown) => {
  if (!(error instanceof Error)) return String(error)
  // The library's errors keep what went wrong below them as `cause`.
  const cause = error.cause instanceof Error ? `\n  cause: ${error.cause.name}: ${error.cause.message}` : ""
  return `${error.name}: ${error.message}${cause}`
}

export default {
  async fetch(request: Request): Promise<Response> {
    const input = (await request.json()) as ScenarioInput
    return Effect.runPromise(scenario(input).pipe(Effect.provide(Lighthouse.layer(layerOptions(input))))).then(
      (report) => Response.json(report),
      (error: unknown) => new Response(describe(error), { status: 500 })
    )
  }
}
