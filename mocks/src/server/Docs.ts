/**
 * The served API host's reference page: `GET /docs`, the contract's OpenAPI document rendered by
 * Scalar (`effect/http-api`'s `HttpApiScalar`, its script inline and without its fonts from
 * fonts.scalar.com, so the page works offline).
 * Built on the first request and kept; `dispose` frees it when the network closes.
 */

import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import { HttpApiScalar } from "effect/http-api"
import * as Layer from "effect/Layer"
import * as Contract from "lighthouse-effect/contract"

/** Where the page is, on the API host. */
export const docsPath = Contract.Routes.dev.docs.path

const build = () =>
  HttpRouter.toWebHandler(
    HttpApiScalar.layer(Contract.LighthouseApi, { path: docsPath, scalar: { withDefaultFonts: false } }).pipe(
      Layer.provide(HttpServer.layerServices)
    ),
    { disableLogger: true }
  )

/** The page's web handler, made when first asked. */
export const makeDocs = () => {
  let web: ReturnType<typeof build> | undefined
  const handler = () => {
    web ??= build()
    return web
  }
  return {
    answer: (request: Request): Promise<Response> => handler().handler(request),
    dispose: async () => {
      await web?.dispose()
    }
  }
}
