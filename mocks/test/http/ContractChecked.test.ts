/**
 * A declared route's JSON answer is held against the contract before it leaves: an undeclared
 * status or a body the declared schema refuses becomes a `500` naming the endpoint and each
 * difference; an honest answer, a declared error and a fault's answer pass unchanged.
 */
import fc from "fast-check"
import { Routes } from "lighthouse-effect/contract"
import { getResponse, HttpResponse } from "msw"
import { describe, expect, it } from "vitest"
import { makeFaults } from "../../src/faults/Faults.ts"
import { on } from "../../src/http/Routes.ts"

const host = "https://api.example.test"
const usageUrl = `${host}${Routes.account.userDataUsage.path}`

/** What the usage route answers when its resolver answers `response`. */
const answerOf = async (response: () => Response, method = "GET") => {
  const handler = on(host, Routes.account.userDataUsage, () => response())
  const answer = await getResponse([handler], new Request(usageUrl, { method }))
  if (answer === undefined) throw new Error("the route did not answer")
  return { status: answer.status, body: (await answer.json()) as unknown }
}

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
