/**
 * The simulated x402 facilitator against the local chain: a payment signed with viem for the
 * EIP-3009 test USDC verifies and settles once; every refusal names its x402 reason and moves no
 * funds (underpayment, another token, expired, replayed, a payer without funds, another payee,
 * a header that is not a payment).
 */

import { deployLocal, type LocalDeployment, testUsdcAbi } from "lighthouse-effect/contracts"
import { type LocalChain, startLocalChain } from "lighthouse-effect/mocks/chain"
import { type Address, erc20Abi, type Hex, toHex } from "viem"
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  decodePaymentHeader,
  type FacilitatorOptions,
  type PaymentPayload,
  type PaymentRequirements,
  settlePayment,
  transferWithAuthorizationTypes,
  verifyPayment
} from "../../src/x402/Facilitator.ts"

let chain: LocalChain
let deployment: LocalDeployment
let facilitator: FacilitatorOptions
let payTo: Address

beforeAll(async () => {
  chain = await startLocalChain()
  deployment = await deployLocal(chain.walletClients[0]!, chain.publicClient)
  facilitator = { publicClient: chain.publicClient, settler: chain.walletClients[9]! }
  payTo = chain.accounts[8]!
}, 120_000)
afterAll(() => chain?.stop())

const requirements = (): PaymentRequirements => ({
  scheme: "exact",
  network: "localhost",
  maxAmountRequired: "4000",
  resource: "https://api.lighthouse.storage/api/x402/upload",
  description: "Store 1 MiB",
  mimeType: "application/json",
  payTo,
  maxTimeoutSeconds: 300,
  asset: deployment.x402Usdc,
  extra: { name: "USD Coin", version: "2" }
})

const mint = async (to: Address, amount: bigint) => {
  const hash = await chain.walletClients[0]!.writeContract({
    address: deployment.x402Usdc,
    abi: testUsdcAbi,
    functionName: "mint",
    args: [to, amount]
  })
  await chain.publicClient.waitForTransactionReceipt({ hash })
}

const balanceOf = (address: Address) =>
  chain.publicClient.readContract({
    address: deployment.x402Usdc,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [address]
  })

interface Terms {
  readonly value?: bigint
  readonly to?: Address
  readonly validBefore?: bigint
  readonly asset?: Address
  readonly nonce?: Hex
}

/** `payer`'s signed payment for the requirements, with some terms changed. */
const pay = async (payer: PrivateKeyAccount, terms: Terms = {}): Promise<PaymentPayload> => {
  const now = (await chain.publicClient.getBlock()).timestamp
  const message = {
    from: payer.address,
    to: terms.to ?? payTo,
    value: terms.value ?? 4000n,
    validAfter: 0n,
    validBefore: terms.validBefore ?? now + 300n,
    nonce: terms.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32)))
  }
  const signature = await payer.signTypedData({
    domain: { name: "USD Coin", version: "2", chainId: 31337, verifyingContract: terms.asset ?? deployment.x402Usdc },
    types: transferWithAuthorizationTypes,
    primaryType: "TransferWithAuthorization",
    message
  })
  const authorization = {
    ...message,
    value: String(message.value),
    validAfter: "0",
    validBefore: String(message.validBefore)
  }
  return { x402Version: 1, scheme: "exact", network: "localhost", payload: { signature, authorization } }
}

const funded = async (index: number, amount: bigint) => {
  const payer = privateKeyToAccount(chain.privateKeys[index]!)
  await mint(payer.address, amount)
  return payer
}

describe("x402 facilitator on the local chain", () => {
  it("verifies and settles a payment once; a replay is refused and moves nothing", async () => {
    const payer = await funded(1, 10_000n)
    const payment = await pay(payer)
    const before = await balanceOf(payTo)
    expect(await verifyPayment(facilitator, requirements(), payment)).toBeUndefined()
    const settled = await settlePayment(facilitator, requirements(), payment)
    expect(settled).toMatchObject({ transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/) })
    expect(await balanceOf(payTo)).toBe(before + 4000n)
    expect(await balanceOf(payer.address)).toBe(6000n)

    expect(await verifyPayment(facilitator, requirements(), payment)).toBe("authorization_already_used")
    // Even past verification, the token refuses the nonce a second time.
    expect(await settlePayment(facilitator, requirements(), payment)).toBe("settlement_failed")
    expect(await balanceOf(payTo)).toBe(before + 4000n)
  })

  it("names each refusal and leaves the balances alone", async () => {
    const payer = await funded(2, 10_000n)
    const broke = privateKeyToAccount(chain.privateKeys[3]!)
    const past = (await chain.publicClient.getBlock()).timestamp
    const cases: ReadonlyArray<readonly [string, Promise<PaymentPayload>]> = [
      ["invalid_exact_evm_payload_authorization_value", pay(payer, { value: 3999n })],
      ["invalid_exact_evm_payload_recipient_mismatch", pay(payer, { to: chain.accounts[4]! })],
      ["invalid_exact_evm_payload_authorization_valid_before", pay(payer, { validBefore: past })],
      // Signed for the other 6-decimal token: not the asset's domain.
      ["invalid_exact_evm_payload_signature", pay(payer, { asset: deployment.usdc })],
      ["insufficient_funds", pay(broke)]
    ]
    for (const [reason, payment] of cases)
      expect(await verifyPayment(facilitator, requirements(), await payment), reason).toBe(reason)
    const wrongNetwork = { ...(await pay(payer)), network: "base" }
    expect(await verifyPayment(facilitator, requirements(), wrongNetwork)).toBe("invalid_network")
    const wrongVersion = { ...(await pay(payer)), x402Version: 2 }
    expect(await verifyPayment(facilitator, requirements(), wrongVersion)).toBe("invalid_x402_version")
    expect(await balanceOf(payer.address)).toBe(10_000n)
  })

  it("decodes X-PAYMENT from base64 JSON and refuses anything else as invalid_payload", async () => {
    const payment = await pay(privateKeyToAccount(chain.privateKeys[5]!))
    const header = btoa(JSON.stringify(payment))
    expect(decodePaymentHeader(header)).toEqual(payment)
    expect(decodePaymentHeader("not base64 !")).toBe("invalid_payload")
    expect(decodePaymentHeader(btoa(JSON.stringify({ ...payment, payload: { signature: "0x12" } })))).toBe(
      "invalid_payload"
    )
    const shortNonce = { ...payment.payload.authorization, nonce: "0x1234" }
    expect(
      decodePaymentHeader(
        btoa(JSON.stringify({ ...payment, payload: { ...payment.payload, authorization: shortNonce } }))
      )
    ).toBe("invalid_payload")
  })
})
