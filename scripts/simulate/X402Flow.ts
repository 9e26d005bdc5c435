/**
 * Flow `x402`: pay per upload, with no account and no API key. The stranger holds some of the
 * EIP-3009 `TestUsdc`; the upload is answered `402` with the price, the stranger's account signs a
 * `TransferWithAuthorization` for it, and the network settles it on the chain before it stores the
 * file. The payee's balance rises by exactly the price and the gateway serves the bytes. An
 * authorisation for less than the price is refused with the typed `X402Underpaid`, and the
 * payee gets nothing more.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { Download, Payment } from "lighthouse-effect"
import { erc20Abi, formatUnits } from "viem"
import { ChainCallFailed, Env, mint, x402PayeeIndex } from "./Environment.ts"
import type { Flow } from "./Flow.ts"
import * as Format from "./Format.ts"
import { check, refused, sameBytes, step } from "./Step.ts"

const text = "Paid for by the upload itself: x402, USDC, EIP-3009.\n"

export const x402: Flow = {
  name: "x402",
  title: "pay per upload over x402 with no API key; an underpayment refused",
  needs: [],
  run: Effect.gen(function* () {
    const { chain, deployment, wallets } = yield* Env
    const pay = yield* Payment.Payment
    const download = yield* Download.Download
    const payer = wallets.stranger
    const payee = chain.accounts[x402PayeeIndex]!
    const payeeBalance = Effect.tryPromise({
      try: () =>
        chain.publicClient.readContract({
          address: deployment.x402Usdc,
          abi: erc20Abi,
          functionName: "balanceOf",
          args: [payee]
        }),
      catch: (e) => new ChainCallFailed({ message: e instanceof Error ? e.message : String(e) })
    })
    const file = () => new File([text], "paid.txt", { type: "text/plain" })
    // The local chain has no USDC everyone knows: the payment may only be in the deployment's.
    const limits = { network: "localhost", asset: deployment.x402Usdc }

    const before = yield* step(
      "payment.x402.mint",
      "mint 0.01 TestUsdc to the stranger",
      Effect.andThen(mint(deployment.x402Usdc, payer.address, 10_000n), payeeBalance),
      () => `${Format.address(payer.address)} holds 0.01 TestUsdc (EIP-3009), no API key`
    )

    const paid = yield* step(
      "payment.x402Upload",
      "upload, answered 402, sign, settle, stored",
      pay.x402Upload({ file: file(), account: payer.account, ...limits }),
      (result) =>
        `${result.entry.Name} ${result.entry.Hash}: paid ${formatUnits(result.paid.amount, 6)} TestUsdc ` +
        `in ${result.settlement.transaction.slice(0, 10)}… on ${result.settlement.network}`
    )

    yield* step(
      "payment.x402.settled",
      "the payee is paid the price; the gateway serves the file",
      Effect.gen(function* () {
        const after = yield* payeeBalance
        yield* check(after - before === paid.paid.amount, `payee got ${after - before}, price ${paid.paid.amount}`)
        const bytes = yield* download.bytes(paid.entry.Hash)
        yield* check(sameBytes(bytes, new TextEncoder().encode(text)), "the gateway served other bytes")
        return after - before
      }),
      (gained) => `payee +${formatUnits(gained, 6)} TestUsdc; ${Format.bytes(text.length)} read back identical`
    )

    yield* refused(
      "payment.x402.refused.underpaid",
      "an authorisation for less than the price",
      pay.x402Upload({ file: file(), account: payer.account, amount: paid.paid.amount - 1n, ...limits }),
      "X402Underpaid"
    )
    yield* step(
      "payment.x402.nothingSettled",
      "the refused payment moved nothing",
      Effect.flatMap(payeeBalance, (after) =>
        check(after - before === paid.paid.amount, `payee got ${after - before}, only ${paid.paid.amount} was paid`)
      ),
      () => "payee balance unchanged since the paid upload"
    )
  })
}
