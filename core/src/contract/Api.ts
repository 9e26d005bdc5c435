/**
 * The contract itself: every group in one `HttpApi`, and the host serving each group.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import { HttpApi, type HttpApiEndpoint, OpenApi } from "effect/http-api"
import * as Option from "effect/Option"
import { Account, Auth, Files, Ipns } from "./ApiHost.ts"
import { Dev } from "./Dev.ts"
import { Gateway } from "./Gateway.ts"
import { KeyNodeAuth, KeyNodeRoutes } from "./KeyNodes.ts"
import { Host, type HostName } from "./Shapes.ts"
import { UploadNode } from "./UploadNode.ts"
import { X402 } from "./X402.ts"
import { X402Current } from "./X402Current.ts"

/** The whole contract. */
export class LighthouseApi extends HttpApi.make("lighthouse")
  .add(Auth)
  .add(Account)
  .add(Files)
  .add(Ipns)
  .add(X402)
  .add(X402Current)
  .add(UploadNode)
  .add(Gateway)
  .add(KeyNodeAuth)
  .add(KeyNodeRoutes)
  .add(Dev)
  // An answer unlike the contract is reported with every difference, not only the first.
  .annotate(HttpApi.SuccessParseOptions, { errors: "all" })
  .annotate(HttpApi.ErrorParseOptions, { errors: "all" })
  .annotateMerge(
    OpenApi.annotations({
      title: "Lighthouse storage API (as lighthouse-effect knows it)",
      version: "0.1.0",
      description:
        "The provider publishes no machine-readable description of its API. This one is generated from the contract of lighthouse-effect (core/src/Contract.ts), which its client and its simulated network are tested against; operations link to the public source of each shape known only from the provider's SDK or documents. Four hosts: each operation names its server. The `dev` operations are the simulated network's own (`npm run serve`), not the provider's."
    })
  ) {}

const index = () => {
  const hosts = new Map<string, HostName>()
  const endpoints = new Map<string, HttpApiEndpoint.Top>()
  HttpApi.reflect(LighthouseApi, {
    onGroup: ({ group }) => {
      const host = Context.getOption(group.annotations as Context.Context<Host>, Host)
      if (Option.isSome(host)) hosts.set(group.identifier, host.value)
    },
    onEndpoint: ({ group, endpoint }) => {
      endpoints.set(`${group.identifier}.${endpoint.identifier}`, endpoint)
    }
  })
  return { hosts, endpoints }
}
const indexed = index()

/** The host serving each group of the contract, by the group's identifier. */
export const GroupHosts: ReadonlyMap<string, HostName> = indexed.hosts

/** Every endpoint of the contract, by `group.endpoint`. */
export const Endpoints: ReadonlyMap<string, HttpApiEndpoint.Top> = indexed.endpoints
