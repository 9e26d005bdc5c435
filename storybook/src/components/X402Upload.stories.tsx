import { expect } from "storybook/test"
import { erc20Abi } from "viem"
import preview from "../../.storybook/preview.ts"
import { deployment, mint, publicClient } from "../demo/chain.ts"
import { demo, startDemo } from "../demo/DemoNetwork.ts"
import { paste } from "../demo/paste.ts"
import { alice, bob } from "../demo/wallets.ts"
import { withDemoRuntime } from "../demo/withDemoRuntime.tsx"
import { X402Upload } from "./X402Upload.tsx"

// This file's contracts, deployed by test account 12; account 13 settles, account 14 is paid.
const contracts = () => deployment(12)

const meta = preview.meta({
  title: "Flows/Pay per upload (x402)",
  component: X402Upload,
  args: { account: alice.account, network: "localhost" },
  // The deployment's EIP-3009 USDC, the one token the payment may be in.
  loaders: [async () => ({ usdc: (await contracts()).x402Usdc })],
  render: (args, { loaded }) => <X402Upload {...args} usdc={(loaded as { usdc: `0x${string}` }).usdc} />,
  beforeEach: startDemo({ deployment: contracts, x402: { settler: 13, payTo: 14 } }),
  decorators: [withDemoRuntime]
})

const balance = async (address: `0x${string}`) =>
  publicClient.readContract({
    address: (await contracts()).x402Usdc,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [address]
  })

export const PaidUpload = meta.story({
  beforeEach: async () => {
    await mint((await contracts()).x402Usdc, alice.address, 10_000n, 12)
  },
  play: async ({ canvas, userEvent }) => {
    const before = await balance(alice.address)
    await paste(userEvent, canvas.getByLabelText("Note"), "paid for by x402")
    await userEvent.click(canvas.getByRole("button", { name: "Pay and upload" }))
    const paid = await canvas.findByLabelText("Paid upload")
    // 1 MiB (the least billed) at 0.00390625 USD per MiB, rounded up.
    await expect(paid).toHaveTextContent(/^Paid0\.003907 USDCSettled in0x[0-9a-f]{64}Storedbafk/)
    await expect(await balance(alice.address)).toBe(before - 3907n)
    const cid = paid.textContent!.split("Stored")[1]!
    await expect(
      demo()
        .network.state.files.of(alice.address)
        .map((r) => r.cid)
    ).toEqual([cid])
  }
})

/** Bob holds no test USDC: the payment is refused, nothing is stored. */
export const PayerWithoutFunds = meta.story({
  args: { account: bob.account },
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("Note"), "unpaid")
    await userEvent.click(canvas.getByRole("button", { name: "Pay and upload" }))
    await expect(await canvas.findByRole("alert")).toHaveTextContent(
      `x402 payer ${bob.account.address} holds less than 3907`
    )
    await expect(demo().network.state.files.of(bob.address)).toEqual([])
  }
})

/** Alice offers the other stablecoin: nothing is signed. */
export const WrongAsset = meta.story({
  play: async ({ canvas, userEvent }) => {
    const { usdc, x402Usdc } = await contracts()
    await paste(userEvent, canvas.getByLabelText("Note"), "in the wrong token")
    await paste(userEvent, canvas.getByLabelText("Pay only in token (optional)"), usdc)
    await userEvent.click(canvas.getByRole("button", { name: "Pay and upload" }))
    await expect(await canvas.findByRole("alert")).toHaveTextContent(
      `x402 payment asked in ${x402Usdc}, offered ${usdc}`
    )
  }
})
