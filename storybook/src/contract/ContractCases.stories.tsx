import { createMockNetwork, type MockNetwork } from "lighthouse-effect/mocks"
import { contractCases, x402FacilitatorNowhere } from "lighthouse-effect/mocks/testing"
import { type HttpHandler, HttpResponse, http } from "msw"
import { expect } from "storybook/test"
import preview from "../../.storybook/preview.ts"
import { ContractCases } from "./ContractCases.tsx"

let network: MockNetwork | undefined

/** The network of the story being shown: the one `beforeEach` gave msw. */
const context = () => {
  if (network === undefined) throw new Error("no network: the story's beforeEach starts one")
  return { network, urls: network.hosts }
}

const meta = preview.meta({
  title: "Harness/Contract cases",
  component: ContractCases,
  args: { cases: contractCases, context },
  // A fresh network under msw for each story, with x402 terms (its facilitator is never reached).
  beforeEach: ({ msw }: { readonly msw: { readonly use: (...handlers: Array<HttpHandler>) => void } }) => {
    network = createMockNetwork({ x402: x402FacilitatorNowhere })
    msw.use(...network.handlers)
    return () => {
      network = undefined
    }
  },
  decorators: [
    (Story) => (
      <div className="lh-story">
        <Story />
      </div>
    )
  ]
})

/** The same cases as core/test/contract/Network.test.ts (over sockets in Node): every answer as declared. */
export const AllAsDeclared = meta.story({
  play: async ({ canvas }) => {
    const status = await canvas.findByText(
      new RegExp(`^${contractCases.length} cases, \\d+ answers: `),
      {},
      { timeout: 60_000 }
    )
    const table = canvas.getByRole("table", { name: "Answers" })
    const verdicts = [...table.querySelectorAll("tbody tr td:last-child")].map((cell) => cell.textContent)
    await expect(verdicts.length).toBeGreaterThan(40)
    await expect(verdicts.filter((verdict) => verdict !== "as declared")).toEqual([])
    await expect(status).toHaveTextContent(
      `${contractCases.length} cases, ${verdicts.length} answers: ${verdicts.length} as declared, 0 differ`
    )
    for (const endpoint of ["auth.createApiKey", "files.getProof", "x402.upload", "gateway.ipfs", "keyNodes.share"])
      await expect(canvas.getAllByText(endpoint).length).toBeGreaterThan(0)
  }
})

/** The provider moved a price: the row of that answer differs, the others stay as declared. */
export const OneAnswerDiffers = meta.story({
  beforeEach: ({ msw }: { readonly msw: { readonly use: (...handlers: Array<HttpHandler>) => void } }) => {
    // FIL's price only; any other symbol goes on to the network's own route.
    msw.use(
      http.get(`${context().urls.api}/api/lighthouse/get_ticker`, ({ request }) =>
        new URL(request.url).searchParams.get("symbol") === "FIL" ? HttpResponse.json(6) : undefined
      )
    )
  },
  play: async ({ canvas }) => {
    await canvas.findByText(/ answers: \d+ as declared, 1 differ$/, {}, { timeout: 60_000 })
    const differing = [...canvas.getByRole("table", { name: "Answers" }).querySelectorAll("tbody tr")].filter(
      (row) => row.lastElementChild?.textContent === "differs"
    )
    await expect(differing.map((row) => [...row.children].map((cell) => cell.textContent))).toEqual([
      ["files.getTicker", "5", "6", "differs"]
    ])
  }
})
