/**
 * The served network's HTTP surface under random requests over real sockets: every route the
 * handlers declare, with random methods, headers, bodies, query strings and path mutations, and
 * the credentials of another account (its API key, its JWT, no credential, garbage). Bounded to a
 * few hundred requests. Never a 5xx except where the provider answers 5xx on purpose (an IPNS key
 * name the caller does not hold), never a dropped connection, and the victim account's files,
 * quota, API keys, IPNS keys and key shards are exactly as they were.
 */

import { Redacted } from "effect"
import fc from "fast-check"
import { Signer } from "lighthouse-effect"
import { createLighthouseNode } from "lighthouse-effect/node"
import type { LighthouseClient } from "lighthouse-effect/promise"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { HostName } from "../../src/faults/index.ts"
import { type ServedMockNetwork, serveMockNetwork } from "../../src/server/serve.ts"
import { addFile } from "../support/upload.ts"

const victim = privateKeyToAccount(generatePrivateKey())
const attacker = privateKeyToAccount(generatePrivateKey())
const victimAddress = victim.address.toLowerCase()

let served: ServedMockNetwork
let lighthouse: LighthouseClient
/** What the victim owns, to aim the requests at. */
let target: { cid: string; keyName: string; ipnsId: string; apiKey: string }
/** The attacker's credentials. */
let credentials: ReadonlyArray<string | undefined>

/** A route declared by the handlers: method, and path with `:params`, on one host. */
interface Route {
  readonly host: HostName
  readonly method: string
  readonly path: string
}
let routes: ReadonlyArray<Route>

/** The provider answers 500 to an IPNS key name the caller does not hold (unknown, removed, or another account's). */
const deliberate500 = (path: string) =>
  ["/api/ipns/publish_record", "/api/ipns/remove_key"].includes(path.replace(/\/+$/, ""))

const routesOf = (network: ServedMockNetwork["network"]): Array<Route> =>
  network.handlers.flatMap((handler) => {
    const info = (handler as { info?: { method?: unknown; path?: unknown } }).info
    if (typeof info?.path !== "string" || typeof info.method !== "string") return []
    const path = info.path
    const host = (Object.entries(network.hosts) as Array<[HostName, string]>).find(([, base]) => path.startsWith(base))
    return host === undefined ? [] : [{ host: host[0], method: info.method, path: path.slice(host[1].length) }]
  })

/** The victim's state, as JSON: any change by the attacker's requests shows as a difference. */
const snapshot = () => {
  const { state } = served.network
  const account = state.accounts.get(victimAddress)
  return JSON.stringify(
    {
      files: state.files.of(victimAddress),
      account: account && { ...account, apiKeys: [...account.apiKeys].sort() },
      ipns: state.ipns.of(victimAddress),
      shards: state.keyNodes.nodes.map((node) => ({
        record: node.files.get(target.cid),
        released: node.released.filter((release) => JSON.stringify(release).includes(target.cid)).length
      }))
    },
    (_, value) =>
      value instanceof Map
        ? [...value.entries()]
        : value instanceof Set
          ? [...value].sort()
          : typeof value === "bigint"
            ? value.toString()
            : value instanceof Uint8Array
              ? Array.from(value)
              : value
  )
}

beforeAll(async () => {
  served = await serveMockNetwork()
  lighthouse = createLighthouseNode({ hosts: served.urls, nodes: { mode: "concurrent" } })
  const { apiKey } = served.network.seedAccount(victim.address, { dataLimit: 1024 * 1024 })
  const uploaded = await addFile(apiKey, "victim.txt", new Blob(["the victim's file"]), {
    node: served.urls.node,
    query: "cid-version=1"
  })
  const cid = ((await uploaded.json()) as { Hash: string }).Hash
  const victimSigner = Signer.makeFromAccount(victim)
  const { token } = await lighthouse.auth.signIn(victimSigner)
  const shards = Array.from({ length: 5 }, (_, i) => ({
    index: (i + 1).toString(16).padStart(64, "0"),
    key: (i + 11).toString(16).padStart(64, "0")
  }))
  await lighthouse.keyShards.save({ address: victimAddress, cid, token, keyShards: shards })
  const key = await lighthouse.ipns.generateKey(apiKey)
  await lighthouse.ipns.publishRecord(apiKey, { cid, keyName: key.ipnsName })
  target = { cid, keyName: key.ipnsName, ipnsId: key.ipnsId, apiKey }

  const attackerKey = served.network.seedAccount(attacker.address, { dataLimit: 1024 * 1024 }).apiKey
  const attackerJwt = Redacted.value((await lighthouse.auth.signIn(Signer.makeFromAccount(attacker))).token)
  credentials = [attackerKey, attackerJwt, undefined, "garbage", `${attacker.address}$0xdeadbeef`]
  // Only the hosts served on a port.
  routes = routesOf(served.network).filter((route) => served.urls[route.host] !== undefined)
})
afterAll(async () => {
  await lighthouse.dispose()
  await served.close()
})

/** One random request, aimed at the victim's things with the attacker's credentials. */
const request = () => {
  const aimed = () =>
    fc.constantFrom(target.cid, target.keyName, target.ipnsId, victimAddress, victim.address, "1", "0", "../..")
  const value = fc.oneof(aimed(), fc.jsonValue())
  const body = fc.oneof(
    fc.constant(undefined),
    fc.dictionary(
      fc.constantFrom(
        "address",
        "cid",
        "keyName",
        "shareTo",
        "revokeTo",
        "newOwner",
        "payload",
        "conditions",
        "refreshToken",
        "signature",
        "dynamicData",
        "resetSharedTo",
        "sharedTo",
        "fileId",
        "id"
      ),
      value
    ),
    fc.jsonValue(),
    fc.string()
  )
  return fc.record({
    route: fc.constantFrom(...routes),
    method: fc.oneof(
      { weight: 3, arbitrary: fc.constant<string | undefined>(undefined) },
      fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD")
    ),
    param: aimed(),
    query: fc.array(fc.tuple(fc.constantFrom("cid", "keyName", "id", "lastKey", "fileType", "pageNo"), aimed())),
    suffix: fc.constantFrom("", "", "", "/", "/..", "/extra", "%2e%2e", "?"),
    credential: fc.constantFrom(...credentials),
    contentType: fc.constantFrom(undefined, "application/json", "text/plain", "multipart/form-data; boundary=x"),
    body
  })
}

describe("served network under random requests", () => {
  it("no unintended 5xx, no dropped connection, and another account's data is untouched", {
    timeout: 60_000
  }, async () => {
    expect(routes.length).toBeGreaterThan(30)
    const before = snapshot()
    const seen = new Set<string>()
    await fc.assert(
      fc.asyncProperty(request(), async (r) => {
        const method = (r.method ?? r.route.method).toUpperCase()
        const path = r.route.path.replace(/:[A-Za-z]+/g, encodeURIComponent(r.param)) + r.suffix
        const url = new URL(`${served.urls[r.route.host]}${path}`)
        for (const [key, val] of r.query) url.searchParams.append(key, val)
        const headers: Record<string, string> = {}
        if (r.credential !== undefined) headers.authorization = `Bearer ${r.credential}`
        if (r.contentType !== undefined) headers["content-type"] = r.contentType
        const payload =
          method === "GET" || method === "HEAD" || r.body === undefined
            ? undefined
            : typeof r.body === "string"
              ? r.body
              : JSON.stringify(r.body)
        const response = await fetch(url, { method, headers, ...(payload === undefined ? {} : { body: payload }) })
        await response.arrayBuffer()
        seen.add(`${r.route.method} ${r.route.path}`)
        if (response.status >= 500 && !(response.status === 500 && deliberate500(url.pathname))) {
          throw new Error(`${method} ${url.pathname}${url.search} answered ${response.status}`)
        }
      }),
      { numRuns: 400 }
    )
    expect(snapshot()).toBe(before)
    // Still serving.
    expect((await fetch(`${served.urls.api}/__dev/clock`)).status).toBe(200)
    expect(seen.size).toBeGreaterThan(routes.length / 2)
  })

  it("publishing to or removing another account's IPNS key answers 500, as the provider does, and changes nothing", async () => {
    const before = snapshot()
    const attackerKey = credentials[0]!
    const publish = await fetch(
      `${served.urls.api}/api/ipns/publish_record?cid=${target.cid}&keyName=${target.keyName}`,
      { headers: { authorization: `Bearer ${attackerKey}` } }
    )
    expect(publish.status).toBe(500)
    const remove = await fetch(`${served.urls.api}/api/ipns/remove_key?keyName=${target.keyName}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${attackerKey}` }
    })
    expect(remove.status).toBe(500)
    expect(snapshot()).toBe(before)
  })
})
