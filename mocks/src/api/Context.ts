/**
 * What every API-host route shares: the state it reads and changes, and the wrappers every route
 * goes through — fault injection first (a `down` or `status` fault answers before any state is
 * read), then the host's guard (a route that throws answers 500), then, for the routes that need
 * one, the caller's API key.
 *
 * @since 0.1.0
 */

import type { CID } from "multiformats/cid"
import type { Faults } from "../faults/index.ts"
import { guard, type RouteErrorLog } from "../http/Guard.ts"
import { bearerToken } from "../http/Request.ts"
import { authenticationFailed } from "../http/Respond.ts"
import type { NodeStat } from "../storage/Dag.ts"
import type { Account, Accounts } from "./Accounts.ts"
import type { Deals } from "./Deals.ts"
import type { Files } from "./Files.ts"
import type { IpnsKeys } from "./Ipns.ts"
import type { PdpDeals } from "./PdpDeals.ts"
import type { Tickers } from "./Tickers.ts"
import type { WalrusBlobs } from "./WalrusBlobs.ts"

export interface ApiHostContext {
  readonly host: string
  readonly accounts: Accounts
  readonly files: Files
  readonly deals: Deals
  readonly ipns: IpnsKeys
  readonly tickers: Tickers
  readonly faults: Faults
  /** Records per `files_uploaded` page. */
  readonly pageSize: number
  /** The blobs behind every CID stored on Walrus. */
  readonly walrus: WalrusBlobs
  /** Who hears of a route that threw; nobody when absent. */
  readonly log?: RouteErrorLog | undefined
  /** Every block the network holds: what a pin can reach. */
  readonly content: ReachableContent
  /** PDP deals requested, shown once the clock has moved on. */
  readonly pdp: PdpDeals
}

/** What a pin reads of the network's blocks (its content store). */
export interface ReachableContent {
  /** Every block of the DAG under `root`; fails with `ContentNotFound` at a missing block. */
  readonly walk: (root: CID) => AsyncIterable<{ readonly bytes: Uint8Array }>
  readonly stat: (cid: CID) => Promise<NodeStat>
}

export type Resolver = (info: { readonly request: Request }) => Response | Promise<Response>

/** A route under the API host's faults and its guard. */
export const route = (context: ApiHostContext, resolver: Resolver): Resolver =>
  context.faults.wrap("api", guard({ name: "api", log: context.log }, resolver))

/** A route for a caller with a valid API key (`Authorization: Bearer`); 401 without one. */
export const authed = (
  context: ApiHostContext,
  resolver: (request: Request, account: Account) => Response | Promise<Response>
): Resolver =>
  route(context, async ({ request }) => {
    const account = await context.accounts.authenticate(bearerToken(request), { oneTime: false })
    return account === undefined ? authenticationFailed() : resolver(request, account)
  })
