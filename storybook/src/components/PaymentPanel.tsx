/**
 * Buys storage: quotes a size in the network's native coin or a stablecoin, pays the payment
 * contract from the user's wallet (approve then `receiveToken` for a token, a plain transfer for
 * the native coin), and shows the account's data limit before and after.
 */
import { Effect } from "effect"
import { Files, Payment } from "lighthouse-effect"
import { type FormEvent, useState } from "react"
import type { WalletClient } from "viem"
import { useEffectCall } from "../runtime/useEffectCall.ts"
import { CallStatus } from "../ui/CallStatus.tsx"
import { DetailsList } from "../ui/DetailsList.tsx"
import { type Option, SelectField, TextField } from "../ui/Field.tsx"
import { formatBytes, short } from "../ui/format.ts"

export interface PaymentPanelProps {
  /** The account whose data limit the payment raises. */
  readonly apiKey: string
  /** The paying wallet (a browser wallet in an app), on the network's chain. */
  readonly wallet: WalletClient
  /** A network of the library's table. @default the configured default network */
  readonly network?: string
}

const MB = 1024 * 1024

const quote = Effect.fnUntraced(function* (apiKey: string, request: { network?: string; token: string; size: number }) {
  const price = yield* Payment.Payment.use((payment) => payment.price(request))
  const usage = yield* Files.Files.use((files) => files.usage(apiKey))
  return { price, dataLimit: usage.dataLimit }
})

const pay = Effect.fnUntraced(function* (apiKey: string, wallet: WalletClient, price: Payment.Price) {
  const paid = yield* Payment.Payment.use((payment) =>
    payment.fund({ network: price.network, token: price.token, amount: price.amount, walletClient: wallet })
  )
  const usage = yield* Files.Files.use((files) => files.usage(apiKey))
  return { paid, dataLimit: usage.dataLimit }
})

/** `0.390625 USDC`, `0.000130208333333333 ETH`. */
const amountText = (price: Payment.Price) =>
  `${price.formatted} ${price.token === "native" ? (price.ticker?.symbol ?? "native coin") : price.token.toUpperCase()}`

const tokens: ReadonlyArray<Option<string>> = [
  { value: "native", text: "Native coin" },
  { value: "usdc", text: "USDC" },
  { value: "dai", text: "DAI" }
]

const QuoteDetails = ({ quoted }: { readonly quoted: Effect.Success<ReturnType<typeof quote>> }) => (
  <DetailsList
    label="Quote"
    rows={[
      { term: "Price", detail: `${quoted.price.usd} USD = ${amountText(quoted.price)}` },
      { term: "Data limit now", detail: formatBytes(quoted.dataLimit) }
    ]}
  />
)

interface ReceiptProps {
  readonly paid: Effect.Success<ReturnType<typeof pay>>
  /** The account's data limit before paying. */
  readonly before: number
}

/** The transaction, and the data limit it bought. */
const Receipt = ({ paid, before }: ReceiptProps) => (
  <DetailsList
    label="Payment"
    rows={[
      { term: "Transaction", detail: <code>{short(paid.paid.hash, 10)}</code> },
      { term: "Payment number", detail: String(paid.paid.payment?.txId ?? "?") },
      { term: "Data limit before", detail: formatBytes(before) },
      { term: "Data limit after", detail: formatBytes(paid.dataLimit) },
      { term: "Bought", detail: formatBytes(paid.dataLimit - before) }
    ]}
  />
)

export const PaymentPanel = ({ apiKey, wallet, network }: PaymentPanelProps) => {
  const [megabytes, setMegabytes] = useState("100")
  const [token, setToken] = useState("usdc")
  const quoted = useEffectCall(quote)
  const paid = useEffectCall(pay)

  const submit = (event: FormEvent) => {
    event.preventDefault()
    paid.reset()
    void quoted.run(apiKey, {
      ...(network === undefined ? {} : { network }),
      token,
      size: Math.round(Number(megabytes) * MB)
    })
  }

  return (
    <form className="lh-card" onSubmit={submit} aria-labelledby="payment-title">
      <h2 id="payment-title">Buy storage</h2>
      <div className="lh-row">
        <TextField label="Storage (MB)" type="number" min="1" value={megabytes} onChange={setMegabytes} />
        <SelectField label="Pay with" value={token} options={tokens} onChange={setToken} />
      </div>
      <button type="submit" disabled={quoted.state === "running" || Number(megabytes) <= 0}>
        Get a quote
      </button>
      <CallStatus call={quoted} running="Pricing…" />
      {quoted.state === "success" && (
        <>
          <QuoteDetails quoted={quoted.value} />
          <button
            type="button"
            disabled={paid.state === "running"}
            onClick={() => void paid.run(apiKey, wallet, quoted.value.price)}
          >
            Pay {amountText(quoted.value.price)}
          </button>
          <CallStatus call={paid} running="Waiting for the wallet and the chain…" success="Paid." />
          {paid.state === "success" && <Receipt paid={paid.value} before={quoted.value.dataLimit} />}
        </>
      )}
    </form>
  )
}
