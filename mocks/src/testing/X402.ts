/**
 * x402 terms for networks whose tests never settle a payment: the unpaid request is answered
 * (`402` with these terms) before any chain call, and the facilitator's chain is a closed port, so
 * a test that did reach it would fail at once instead of touching a real chain.
 *
 * @since 0.1.0
 */
import { createPublicClient, createWalletClient, http } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { hardhat } from "viem/chains"
import type { X402Options } from "../x402/UploadRoute.ts"

/** Port 9 (discard) on the loopback: nothing listens there, a request is refused at once. */
const nowhere = http("http://127.0.0.1:9", { retryCount: 0 })

/** `createMockNetwork`'s and `serveMockNetwork`'s `x402` option, its facilitator pointed nowhere. */
export const x402FacilitatorNowhere: X402Options = {
  publicClient: createPublicClient({ chain: hardhat, transport: nowhere }),
  settler: createWalletClient({
    account: privateKeyToAccount(`0x${"11".repeat(32)}`),
    chain: hardhat,
    transport: nowhere
  }),
  asset: "0x2222222222222222222222222222222222222222",
  payTo: "0x1111111111111111111111111111111111111111"
}
