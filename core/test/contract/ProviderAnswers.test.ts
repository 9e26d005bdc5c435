/**
 * The provider's recorded answers (its SDK's declared types, its tests' statuses, the documented
 * bodies) decoded by the contract: each is as declared, so a contract change that the real
 * service would break fails here; the known gaps are named field by field.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { HttpClientRequest } from "effect/http"
import * as Contract from "lighthouse-effect/contract"
import { knownDifferences, type ProviderAnswer, providerAnswers } from "./fixtures/providerAnswers.ts"

const compare = (answer: ProviderAnswer) => {
  const [group = "", endpoint = ""] = answer.endpoint.split(".")
  const declared = Contract.Endpoints.get(answer.endpoint)
  assert.isDefined(declared, answer.endpoint)
  return Contract.compare(group, endpoint, HttpClientRequest.make(declared!.method)(declared!.path), {
    status: answer.status,
    headers: { "content-type": "application/json" },
    text: JSON.stringify(answer.body)
  })
}

describe("the provider's recorded answers", () => {
  it.effect("each decodes as the contract declares", () =>
    Effect.gen(function* () {
      for (const answer of providerAnswers) {
        const comparison = yield* compare(answer)
        assert.deepStrictEqual(comparison._tag, "AsDeclared", `${answer.endpoint} ${answer.status} (${answer.source})`)
        if (comparison._tag === "AsDeclared") assert.strictEqual(comparison.declaredError, answer.status >= 400)
      }
    })
  )

  it.effect("the known gaps: the contract names each field the SDK's shape lacks", () =>
    Effect.gen(function* () {
      for (const answer of knownDifferences) {
        const comparison = yield* compare(answer)
        assert.strictEqual(comparison._tag, "Differs", answer.endpoint)
        if (comparison._tag === "Differs") {
          assert.deepStrictEqual(comparison.differences.map((d) => d.field).sort(), [...answer.fields].sort())
        }
      }
    })
  )

  it.effect("a body the contract refuses is refused: a recorded answer with a field renamed", () =>
    Effect.gen(function* () {
      const usage = providerAnswers.find(
        (answer) => answer.endpoint === "account.userDataUsage" && answer.status === 200
      )!
      const { dataLimit, ...rest } = usage.body as Record<string, unknown>
      const comparison = yield* compare({ ...usage, body: { ...rest, data_limit: dataLimit } })
      assert.deepStrictEqual(comparison, {
        _tag: "Differs",
        status: 200,
        differences: [{ field: "dataLimit", value: undefined, problem: "Missing key" }]
      })
    })
  )
})
