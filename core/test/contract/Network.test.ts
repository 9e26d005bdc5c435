/**
 * The contract against the simulated network, over real sockets: the contract's cases
 * (`contractCases`, shared with the browser story storybook/src/contract/ContractCases.stories.tsx)
 * call every endpoint of the API host, the upload node, the gateway, x402 and the key nodes
 * through a client generated from the contract (`HttpApiClient`, requests encoded by its schemas),
 * and every answer is decoded by the contract's schemas: the successes, and the declared error
 * answers (status and body). Each row a case returns must be as declared.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { type ServedMockNetwork, serveMockNetwork } from "lighthouse-effect/mocks/server"
import { contractCases, x402FacilitatorNowhere } from "lighthouse-effect/mocks/testing"
import { afterAll, beforeAll } from "vitest"

let served: ServedMockNetwork
beforeAll(async () => {
  served = await serveMockNetwork({ x402: x402FacilitatorNowhere })
})
afterAll(() => served.close())

describe("the contract against the simulated network", () => {
  for (const contractCase of contractCases) {
    it.effect(contractCase.name, () =>
      Effect.gen(function* () {
        const rows = yield* contractCase.run({ network: served.network, urls: served.urls })
        assert.isAbove(rows.length, 0)
        for (const row of rows) assert.strictEqual(row.actual, row.expected, row.endpoint)
      }).pipe(Effect.provide(FetchHttpClient.layer))
    )
  }
})
