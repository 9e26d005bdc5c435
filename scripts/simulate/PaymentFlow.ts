/**
 * Flow `payment`: the owner buys storage on the local chain. A quote for 100 MiB in the 6-decimal
 * stablecoin is paid with `approve` + `receiveToken`, then 50 MiB is priced in the native coin
 * (through the API's ticker) and paid with a value transfer. After each payment the API reads the
 * contract's `ReceivedPayment` events (`syncPayments`, the provider's back office) and the data
 * limit, read over the API, rises by at least what was priced.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { Files, Payment } from "lighthouse-effect"
import { formatUnits } from "viem"
import { Env, mint, mock } from "./Environment.ts"
import type { Flow } from "./Flow.ts"
import * as Format from "./Format.ts"
import { need } from "./Session.ts"
import { check, step } from "./Step.ts"

const network = "localhost"

export const payment: Flow = {
  name: "payment",
  title: "quote, pay in USDC and in the native coin, the quota rises",
  needs: ["account"],
  run: Effect.gen(function* () {
    const { wallets, deployment } = yield* Env
    const pay = yield* Payment.Payment
    const files = yield* Files.Files
    const apiKey = yield* need("apiKey")
    const owner = wallets.owner

    /** Lets the API credit new payments, and checks the limit rose by at least `bought` bytes. */
    const credited = Effect.fnUntraced(function* (bought: number) {
      const before = (yield* files.usage(apiKey)).dataLimit
      const synced = yield* mock((n) => n.syncPayments())
      const after = (yield* files.usage(apiKey)).dataLimit
      yield* check(synced.credited.length === 1, `expected 1 payment credited, got ${synced.credited.length}`)
      yield* check(after - before >= bought, `limit rose by ${after - before} B, less than ${bought} B`)
      return { before, after, credit: synced.credited[0]! }
    })

    const quote = yield* step(
      "payment.quote",
      "quote 100 MiB in USDC",
      pay.quote({ files: [{ fileSize: 100 * Format.MiBytes, fileName: "dataset.csv" }], token: "usdc", network }),
      (q) => `${q.price.formatted} USDC (${q.price.amount} units, $${q.price.usd}) for ${Format.bytes(q.totalSize)}`
    )

    yield* step(
      "payment.balance",
      "mint 10 USDC to the owner",
      Effect.gen(function* () {
        yield* mint(deployment.usdc, owner.address, 10_000_000n)
        return yield* pay.balance({ address: owner.address, token: "usdc", network })
      }),
      (balance) => `owner holds ${formatUnits(balance, 6)} USDC (balanceOf through Payment.balance)`
    )

    const paidUsdc = yield* step(
      "payment.fund.usdc",
      "pay in USDC",
      pay.fund({ amount: quote.price.amount, token: "usdc", network, account: owner.account }),
      (paid) =>
        `approve ${paid.approval?.hash.slice(0, 10)}…, receiveToken ${paid.hash.slice(0, 10)}…, ` +
        `txId ${paid.payment?.txId}, ${paid.payment?.amount} units`
    )

    yield* step(
      "payment.credit.usdc",
      "API credits it: quota rises",
      credited(100 * Format.MiBytes),
      ({ before, after, credit }) =>
        `syncPayments credited txId ${paidUsdc.payment?.txId}: limit ${Format.bytes(before)} → ` +
        `${Format.bytes(after)} (+${Format.bytes(credit.bytes)})`
    )

    const native = yield* step(
      "payment.price.native",
      "price 50 MiB in ETH",
      pay.price({ size: 50 * Format.MiBytes, network }),
      (price) => `${price.formatted} ETH (${price.amount} wei) at ETH = $${price.ticker?.usd} (API ticker)`
    )

    const paidNative = yield* step(
      "payment.fund.native",
      "pay in ETH",
      pay.fund({ amount: native.amount, network, privateKey: owner.privateKey }),
      (paid) => `value transfer ${paid.hash.slice(0, 10)}…, txId ${paid.payment?.txId}, ${paid.payment?.amount} wei`
    )

    yield* step(
      "payment.credit.native",
      "API credits it: quota rises",
      credited(50 * Format.MiBytes),
      ({ before, after, credit }) =>
        `syncPayments credited txId ${paidNative.payment?.txId}: limit ${Format.bytes(before)} → ` +
        `${Format.bytes(after)} (+${Format.bytes(credit.bytes)})`
    )
  })
}
