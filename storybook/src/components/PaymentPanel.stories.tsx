import { bytesForPayment, DefaultDataLimit } from "lighthouse-effect/mocks"
import { expect } from "storybook/test"
import preview from "../../.storybook/preview.ts"
import { deployment, mint, walletClientOf } from "../demo/chain.ts"
import { demo, startDemo } from "../demo/DemoNetwork.ts"
import { alice, bob } from "../demo/wallets.ts"
import { withDemoRuntime } from "../demo/withDemoRuntime.tsx"
import { formatBytes } from "../ui/format.ts"
import { PaymentPanel } from "./PaymentPanel.tsx"

// This file's contracts, deployed by test account 10 (other files deploy with other accounts).
const contracts = () => deployment(10)

const meta = preview.meta({
  title: "Flows/Payment",
  component: PaymentPanel,
  args: { apiKey: alice.apiKey, wallet: walletClientOf(alice.account) },
  beforeEach: startDemo({ deployment: contracts }),
  decorators: [withDemoRuntime]
})

export const PayWithStablecoin = meta.story({
  beforeEach: async () => {
    await mint((await contracts()).usdc, alice.account.address, 10_000_000n, 10)
  },
  play: async ({ canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("button", { name: "Get a quote" }))
    // 100 MB at 0.00390625 USD per MB, in the 6-decimal stablecoin.
    await expect(await canvas.findByLabelText("Quote")).toHaveTextContent(
      `Price0.390625 USD = 0.390625 USDCData limit now${formatBytes(DefaultDataLimit)}`
    )
    await userEvent.click(canvas.getByRole("button", { name: "Pay 0.390625 USDC" }))
    const payment = await canvas.findByLabelText("Payment", {}, { timeout: 10_000 })
    await expect(payment).toHaveTextContent(
      `Data limit before${formatBytes(DefaultDataLimit)}Data limit after${formatBytes(DefaultDataLimit + bytesForPayment(390_625n, 6))}Bought100.0 MB`
    )
  }
})

export const PayWithNativeCoin = meta.story({
  play: async ({ canvas, userEvent }) => {
    await userEvent.selectOptions(canvas.getByLabelText("Pay with"), "native")
    await userEvent.clear(canvas.getByLabelText("Storage (MB)"))
    await userEvent.type(canvas.getByLabelText("Storage (MB)"), "50")
    await userEvent.click(canvas.getByRole("button", { name: "Get a quote" }))
    // The mock's ticker prices ETH at 3000 USD.
    await expect(await canvas.findByLabelText("Quote")).toHaveTextContent(
      "Price0.1953125 USD = 0.000065104166666667 ETH"
    )
    await userEvent.click(canvas.getByRole("button", { name: "Pay 0.000065104166666667 ETH" }))
    const payment = await canvas.findByLabelText("Payment", {}, { timeout: 10_000 })
    await expect(payment).toHaveTextContent(
      `Data limit after${formatBytes(DefaultDataLimit + bytesForPayment(65_104_166_666_667n, 18, 3000n * 100_000_000n))}`
    )
  }
})

/** Bob holds no USDC: the contract refuses the payment, and his data limit stays. */
export const NotEnoughTokens = meta.story({
  args: { apiKey: bob.apiKey, wallet: walletClientOf(bob.account) },
  play: async ({ canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("button", { name: "Get a quote" }))
    await userEvent.click(await canvas.findByRole("button", { name: "Pay 0.390625 USDC" }))
    await expect(await canvas.findByRole("alert", {}, { timeout: 10_000 })).toHaveTextContent(
      "INSUFFICIENT_USER_BALANCE"
    )
    await expect(demo().network.state.accounts.get(bob.address)?.dataLimit).toBe(DefaultDataLimit)
  }
})

export const TickerDown = meta.story({
  beforeEach: () => {
    demo().network.faults.status({ host: "api", path: "/api/lighthouse/get_ticker" }, 500)
  },
  play: async ({ canvas, userEvent }) => {
    await userEvent.selectOptions(canvas.getByLabelText("Pay with"), "native")
    await userEvent.click(canvas.getByRole("button", { name: "Get a quote" }))
    await expect(await canvas.findByRole("alert")).toHaveTextContent(
      "Failed to get ticker price: HTTP error! status 500"
    )
  }
})
