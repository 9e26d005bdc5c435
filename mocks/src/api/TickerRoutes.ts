/**
 * Token prices in USD, which the client turns into how much to pay for storage.
 *
 * @since 0.1.0
 */

import { Routes } from "lighthouse-effect/contract"
import type { HttpHandler } from "msw"
import { queryOf } from "../http/Request.ts"
import { errorResponse, json } from "../http/Respond.ts"
import { on } from "../http/Routes.ts"
import { type ApiHostContext, route } from "./Context.ts"

export const tickerRoutes = (context: ApiHostContext): Array<HttpHandler> => [
  on(
    context.host,
    Routes.files.getTicker,
    route(context, ({ request }) => {
      const symbol = queryOf(request).get("symbol") ?? ""
      if (symbol === "") return errorResponse(400, "symbol is required")
      const price = context.tickers.get(symbol)
      return price === undefined ? errorResponse(404, `no price for ${symbol}`) : json(price)
    })
  )
]
