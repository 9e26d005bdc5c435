/**
 * The last resort of every mock host's routes: a route that throws (a bug in the mock, not a
 * refusal it means to give) still answers as a server would, with a JSON 500, instead of msw's
 * exception page or a dropped connection. Who hears of it is the network's choice: nobody by
 * default, so a passing test prints nothing; `logRouteErrorsToConsole` for a served network.
 */
import { deliberate } from "./ContractChecked.ts"
import { errorResponse } from "./Respond.ts"

/** A route that threw: on which host, for which request, and what it threw. */
export interface RouteFailure {
  readonly host: string
  readonly request: Request
  readonly error: unknown
}

/** Hears of every route that threw. */
export type RouteErrorLog = (failure: RouteFailure) => void

/** Writes each failure, with its stack, to the console's error stream. */
export const logRouteErrorsToConsole: RouteErrorLog = ({ error, host, request }) =>
  console.error(`${host}: ${request.method} ${request.url} failed`, error)

/** The host a guarded route answers for. */
export interface GuardedHost {
  /** The name failures are reported under (`api`, `gateway`, `key node 3`, …). */
  readonly name: string
  /** The host's own 500 body; the provider's `{ "error": "Internal Server Error" }` by default. */
  readonly failed?: () => Response
  /** Who hears of a route that threw; nobody when absent. */
  readonly log?: RouteErrorLog | undefined
}

const internalServerError = (): Response => errorResponse(500, "Internal Server Error")

/** `answer`, turned into the host's 500 (reported to its log) when it throws. */
export const guard =
  <Info extends { readonly request: Request }>(
    host: GuardedHost,
    answer: (info: Info) => Response | Promise<Response>
  ) =>
  async (info: Info): Promise<Response> => {
    try {
      return await answer(info)
    } catch (error) {
      host.log?.({ host: host.name, request: info.request, error })
      // Already loud (a 500, logged): the contract check leaves the host's own body.
      return deliberate((host.failed ?? internalServerError)())
    }
  }
