/**
 * The provider's API as this project knows it, declared once as an `HttpApi` (`effect/http-api`):
 * one group per host concern, every endpoint with its method, path, parameters, headers, request
 * and answer schemas (the library's own models) and each error answer with its status and body.
 * `openApi()` is the OpenAPI document generated from it (`docs/openapi.json`); `doctor` probes a
 * network against it.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import { HttpApi, OpenApi } from "effect/http-api"
import * as Option from "effect/Option"
import { Account, Auth, Files, Ipns } from "./contract/ApiHost.ts"
import { Gateway } from "./contract/Gateway.ts"
import { KeyNodeAuth, KeyNodeRoutes } from "./contract/KeyNodes.ts"
import { Host, type HostName, ProductionHosts } from "./contract/Shapes.ts"
import { UploadNode } from "./contract/UploadNode.ts"
import { X402 } from "./contract/X402.ts"

export { Account, Auth, Files, Ipns } from "./contract/ApiHost.ts"
export { Gateway, Provider, Providers } from "./contract/Gateway.ts"
export { KeyNodeAuth, KeyNodeRoutes, NodeId, NodeSuccess } from "./contract/KeyNodes.ts"
export { ApiError, Host, type HostName, HostNames, NodeError, ProductionHosts } from "./contract/Shapes.ts"
export { UploadNode } from "./contract/UploadNode.ts"
export { X402, X402PaymentRequiredV1, X402Version } from "./contract/X402.ts"

/** The whole contract. */
export class LighthouseApi extends HttpApi.make("lighthouse")
  .add(Auth)
  .add(Account)
  .add(Files)
  .add(Ipns)
  .add(X402)
  .add(UploadNode)
  .add(Gateway)
  .add(KeyNodeAuth)
  .add(KeyNodeRoutes)
  .annotateMerge(
    OpenApi.annotations({
      title: "Lighthouse storage API (as lighthouse-effect knows it)",
      version: "0.1.0",
      description:
        "The provider publishes no machine-readable description of its API. This one is generated from the contract of lighthouse-effect (core/src/Contract.ts), which its client and its simulated network are tested against; operations link to the public source of each shape known only from the provider's SDK or documents. Four hosts: each operation names its server."
    })
  ) {}

const hostsByGroup = (): ReadonlyMap<string, HostName> => {
  const hosts = new Map<string, HostName>()
  HttpApi.reflect(LighthouseApi, {
    onGroup: ({ group }) => {
      const host = Context.getOption(group.annotations as Context.Context<Host>, Host)
      if (Option.isSome(host)) hosts.set(group.identifier, host.value)
    },
    onEndpoint: () => {}
  })
  return hosts
}

/** The host serving each group of the contract, by the group's identifier. */
export const GroupHosts: ReadonlyMap<string, HostName> = hostsByGroup()

/**
 * The OpenAPI document of the contract, each operation served by its host (`hosts`, the
 * production ones by default).
 */
export const openApi = (hosts: Readonly<Record<HostName, string>> = ProductionHosts): OpenApi.OpenAPISpec => {
  const spec = OpenApi.fromApi(LighthouseApi)
  for (const item of Object.values(spec.paths)) {
    for (const operation of Object.values(item) as Array<OpenApi.OpenAPISpecOperation>) {
      const host = GroupHosts.get(operation.tags[0] ?? "")
      if (host !== undefined) Object.assign(operation, { servers: [{ url: hosts[host] }] })
    }
  }
  return spec
}
