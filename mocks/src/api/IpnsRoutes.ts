/**
 * An account's IPNS keys: generate one, point it at a CID, list them, remove one.
 *
 * @since 0.1.0
 */

import { Routes } from "lighthouse-effect/contract"
import type { HttpHandler } from "msw"
import { cidParam, queryOf } from "../http/Request.ts"
import { errorResponse, json } from "../http/Respond.ts"
import { on } from "../http/Routes.ts"
import { type ApiHostContext, authed } from "./Context.ts"

export const ipnsRoutes = (context: ApiHostContext): Array<HttpHandler> => {
  const { host, ipns } = context
  return [
    on(
      host,
      Routes.ipns.generateKey,
      authed(context, (_, account) => {
        const key = ipns.generate(account.address)
        return json({ ipnsName: key.ipnsName, ipnsId: key.ipnsId })
      })
    ),
    on(
      host,
      Routes.ipns.publishRecord,
      authed(context, (request, account) => {
        const param = cidParam(request)
        if ("error" in param) return param.error
        const keyName = queryOf(request).get("keyName") ?? ""
        const key = ipns.get(account.address, keyName)
        // The provider answers 500, not a 4xx, to a key name this account does not hold (unknown,
        // removed, or another account's): kept, so clients meet the status they will meet there.
        if (key === undefined) return errorResponse(500, `no key named ${keyName}`)
        ipns.publish(account.address, keyName, param.text)
        return json({ Name: key.ipnsId, Value: `/ipfs/${param.text}` })
      })
    ),
    on(
      host,
      Routes.ipns.getIpnsRecords,
      authed(context, (_, account) =>
        json(
          ipns.of(account.address).map((key) => ({
            ipnsName: key.ipnsName,
            ipnsId: key.ipnsId,
            publicKey: key.publicKey,
            cid: key.cid,
            lastUpdate: key.lastUpdate
          }))
        )
      )
    ),
    on(
      host,
      Routes.ipns.removeKey,
      authed(context, (request, account) => {
        const keyName = queryOf(request).get("keyName") ?? ""
        const key = ipns.get(account.address, keyName)
        // 500 as the provider answers (see publish_record): removing twice, or another account's key.
        if (key === undefined) return errorResponse(500, `no key named ${keyName}`)
        ipns.remove(account.address, keyName)
        return json({ Keys: [{ Name: key.ipnsName, Id: key.ipnsId }] })
      })
    )
  ]
}
