/**
 * A served network told to drift from the contract, the way a provider moves under its clients,
 * so `doctor` can be shown to name each move (`serve --drift KIND`, repeatable):
 *
 * - `rename-field`: the usage answer (`user_data_usage`) calls `dataUsed` `data_used`;
 * - `status`: the proof of a CID without deals (`get_proof`) is a `404`, not the declared `400`;
 * - `x402-v2`: the x402 upload's `402` is of version 2: `x402Version: 2`, and each requirement's
 *   `maxAmountRequired` is `amount`, as the protocol's second version names it.
 *
 * The answers are changed after the honest network made them; which route is which comes from
 * the contract's declarations, not from paths written here.
 */
import * as Contract from "lighthouse-effect/contract"

/** The drifts a served network can be told to make. */
export const Drifts = ["rename-field", "status", "x402-v2"] as const
export type Drift = (typeof Drifts)[number]

const pathOf = (endpoint: string): string => {
  const declared = Contract.Endpoints.get(endpoint)
  if (declared === undefined) throw new Error(`no endpoint ${endpoint} in the contract`)
  return declared.path
}

/** Which declared endpoint each drift changes, and on which answer status. */
const targets: Readonly<Record<Drift, { readonly path: string; readonly status: number }>> = {
  "rename-field": { path: pathOf("account.userDataUsage"), status: 200 },
  status: { path: pathOf("files.getProof"), status: 400 },
  "x402-v2": { path: pathOf("x402.upload"), status: 402 }
}

const renameKey = (record: Record<string, unknown>, from: string, to: string) =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key === from ? to : key, value]))

const rewrite = (drift: Drift, body: Record<string, unknown>): { readonly body: unknown; readonly status?: number } => {
  switch (drift) {
    case "rename-field":
      return { body: renameKey(body, "dataUsed", "data_used") }
    case "status":
      return { body, status: 404 }
    case "x402-v2": {
      const accepts = Array.isArray(body.accepts) ? body.accepts : []
      return {
        body: {
          ...body,
          x402Version: 2,
          accepts: accepts.map((terms: Record<string, unknown>) => renameKey(terms, "maxAmountRequired", "amount"))
        }
      }
    }
  }
}

/** `response` to `request` as the drifted network answers it (the same one when no drift applies). */
export const drifted = async (
  drifts: ReadonlyArray<Drift>,
  request: Request,
  response: Response
): Promise<Response> => {
  const path = new URL(request.url).pathname
  const drift = drifts.find((kind) => targets[kind].path === path && targets[kind].status === response.status)
  if (drift === undefined) return response
  const body = (await response.json()) as Record<string, unknown>
  const changed = rewrite(drift, body)
  const headers = new Headers(response.headers)
  headers.delete("content-length")
  return Response.json(changed.body, { status: changed.status ?? response.status, headers })
}
