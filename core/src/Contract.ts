/**
 * The provider's API as this project knows it, declared once as an `HttpApi` (`effect/http-api`):
 * one group per host concern, every endpoint with its method, path, parameters, headers, request
 * and answer schemas (the library's own models) and each error answer with its status and body.
 * `openApi()` is the OpenAPI document generated from it (`docs/openapi.json`); `Doctor` probes a
 * network against it. Its own entry, `lighthouse-effect/contract`, so that an application that
 * never checks a network does not compile or bundle it.
 *
 * @since 0.1.0
 */
import { OpenApi } from "effect/http-api"
import { GroupHosts, LighthouseApi } from "./contract/Api.ts"
import { type HostName, ProductionHosts } from "./contract/Shapes.ts"

export { Endpoints, GroupHosts, LighthouseApi } from "./contract/Api.ts"

export { Account, Auth, Files, Ipns } from "./contract/ApiHost.ts"
export { type Comparison, compare, type Difference } from "./contract/Check.ts"
export { Dev, DevClockMove, DevClockState } from "./contract/Dev.ts"
export { Gateway, Provider, Providers } from "./contract/Gateway.ts"
export { KeyNodeAuth, KeyNodeRoutes, NodeId, NodeSuccess } from "./contract/KeyNodes.ts"
export { ApiError, Host, type HostName, HostNames, NodeError, ProductionHosts } from "./contract/Shapes.ts"
export { UploadNode } from "./contract/UploadNode.ts"
export { X402, X402PaymentRequiredV1, X402Version } from "./contract/X402.ts"
export { X402Current } from "./contract/X402Current.ts"
export * as Doctor from "./Doctor.ts"
export {
  callOf,
  type PathParams,
  pathOf,
  prefixOf,
  type Route,
  type RouteMethod,
  Routes
} from "./routes/Routes.ts"

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
