/**
 * A declared route's JSON answer is held against the contract before it leaves: an undeclared
 * status or a body the declared schema refuses becomes a `500` naming the endpoint and each
 * difference; an honest answer, a declared error and a fault's answer pass unchanged. An answer
 * that is not JSON (a CAR, a raw block, bytes) is held by its status and media type alike.
 */
import fc from "fast-check"
import { type Route, Routes } from "lighthouse-effect/contract"
import { getResponse, HttpResponse } from "msw"
import { describe, expect, it } from "vitest"
import { makeFaults } from "../../src/faults/Faults.ts"
import { on } from "../../src/http/Routes.ts"

const host = "https://api.example.test"
const usageUrl = `${host}${Routes.account.userDataUsage.path}`
const gateway = "https://gateway.example.test"
const cid = "bafkreidon73zkcrwdb5iafqtijxildoonbwnpv7dyd6ef3qdgads2jc4su"
const carType = "application/vnd.ipld.car; version=1; order=dfs; dups=y"
/** Bytes that stand for a CAR: the check reads the answer's head, never its body. */
const carBytes = Uint8Array.from({ length: 64 }, (_, i) => (i * 7) & 0xff)

/** What the usage route answers when its resolver answers `response`. */
const answerOf = async (response: () => Response, method = "GET") => {
  const handler = on(host, Routes.account.userDataUsage, () => response())
  const answer = await getResponse([handler], new Request(usageUrl, { method }))
  if (answer === undefined) throw new Error("the route did not answer")
  return { status: answer.status, body: (await answer.json()) as unknown }
}

/** A CAR of `carBytes` at `status`. */
const carAnswer = (status: number) => new Response(carBytes, { status, headers: { "content-type": carType } })

/** What `route` on the gateway answers to a CAR request when its resolver answers `response`. */
const bytesAnswerOf = async (route: Route, response: () => Response) => {
  const handler = on(gateway, route, () => response())
  const url = `${gateway}${route.path.replace(":cid", cid)}?format=car`
  const answer = await getResponse([handler], new Request(url, { method: route.method }))
  if (answer === undefined) throw new Error("the route did not answer")
  return answer
}

const bodyOf = async (answer: Response) => ({ status: answer.status, body: (await answer.json()) as unknown })

const outside = (differences: string) => ({
  status: 500,
  body: { error: `the simulated network answered account.userDataUsage outside the contract: ${differences}` }
})

describe("a route checked against the contract", () => {
  it("replaces an undeclared status by a 500 naming it", async () => {
    expect(await answerOf(() => HttpResponse.json({ dataLimit: 1, dataUsed: 0 }, { status: 418 }))).toEqual(
      outside("status: 418 (the contract declares no 418 answer here)")
    )
  })

  it("replaces a renamed field by a 500 naming the field and its value", async () => {
    expect(await answerOf(() => HttpResponse.json({ dataLimit: 10, data_used: 3 }))).toEqual(
      outside("dataUsed: undefined (Missing key)")
    )
  })

  it("lets an honest answer and a declared error pass unchanged", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.nat(), async (dataLimit, dataUsed) => {
        expect(await answerOf(() => HttpResponse.json({ dataLimit, dataUsed }))).toEqual({
          status: 200,
          body: { dataLimit, dataUsed }
        })
      }),
      { numRuns: 25 }
    )
    expect(await answerOf(() => HttpResponse.json({ error: "Authentication failed" }, { status: 401 }))).toEqual({
      status: 401,
      body: { error: "Authentication failed" }
    })
  })

  it("lets an honest CAR answer pass unchanged, body and headers", async () => {
    const answer = await bytesAnswerOf(Routes.gateway.ipfs, () => carAnswer(200))
    expect(answer.status).toBe(200)
    expect(answer.headers.get("content-type")).toBe(carType)
    expect(new Uint8Array(await answer.arrayBuffer())).toEqual(carBytes)
  })

  it("replaces a CAR at an undeclared status by a 500 naming it", async () => {
    expect(await bodyOf(await bytesAnswerOf(Routes.gateway.ipfs, () => carAnswer(206)))).toEqual({
      status: 500,
      body: {
        error:
          "the simulated network answered gateway.ipfs outside the contract: status: 206 (the contract declares no 206 answer here)"
      }
    })
  })

  it("replaces bytes of a media type the endpoint does not declare by a 500 naming it", async () => {
    expect(await bodyOf(await bytesAnswerOf(Routes.gateway.cat, () => carAnswer(200)))).toEqual({
      status: 500,
      body: {
        error: `the simulated network answered gateway.cat outside the contract: content-type: "${carType}" (the contract declares application/octet-stream for 200)`
      }
    })
    const untyped = () => new Response(carBytes, { status: 200, headers: { "content-type": "" } })
    expect(await bodyOf(await bytesAnswerOf(Routes.gateway.ipfs, untyped))).toEqual({
      status: 500,
      body: {
        error:
          'the simulated network answered gateway.ipfs outside the contract: content-type: "" (the contract declares application/octet-stream, application/vnd.ipld.car, application/vnd.ipld.raw for 200)'
      }
    })
    const textError = () => new Response("not here", { status: 404, headers: { "content-type": "text/plain" } })
    expect(await bodyOf(await bytesAnswerOf(Routes.gateway.ipfs, textError))).toEqual({
      status: 500,
      body: {
        error:
          'the simulated network answered gateway.ipfs outside the contract: content-type: "text/plain" (the contract declares application/json for 404)'
      }
    })
  })

  it("leaves a fault's CAR answer as the fault made it", async () => {
    const faults = makeFaults()
    faults.status({ host: "gateway" }, 206)
    const handler = on(
      gateway,
      Routes.gateway.ipfs,
      faults.wrap("gateway", () => carAnswer(200))
    )
    const answer = await getResponse([handler], new Request(`${gateway}/ipfs/${cid}?format=car`))
    expect(answer?.status).toBe(206)
  })

  it("leaves a fault's answer as the fault made it", async () => {
    const faults = makeFaults()
    faults.status({ host: "api" }, 503, { body: { error: "deliberately down" } })
    const handler = on(
      host,
      Routes.account.userDataUsage,
      faults.wrap("api", () => HttpResponse.json({ dataLimit: 1, dataUsed: 0 }))
    )
    const answer = await getResponse([handler], new Request(usageUrl))
    expect(answer?.status).toBe(503)
    expect(await answer?.json()).toEqual({ error: "deliberately down" })
  })
})
