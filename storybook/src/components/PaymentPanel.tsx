/**
 * Buys storage: quotes a size in the network's native coin or a stablecoin, pays the payment
 * contract from the user's wallet (approve then `receiveToken` for a token, a plain transfer for
 * the native coin), and shows the account's data limit before and after.
 */
import { Effect } from "effect"
import { type FormEvent, useState } from "react"
import type { WalletClient } from "viem"
import { Files, Payment } from "lighthouse-effect"
import { useEffectCall } from "../runtime/useEffectCall.ts"
import { CallStatus } from "../ui/CallStatus.tsx"
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
        <label className="lh-field">
          Storage (MB)
          <input
            type="number"
            min="1"
            value={megabytes}
            onChange={(event) => setMegabytes(event.currentTarget.value)}
          />
        </label>
        <label className="lh-field">
          Pay with
          <select value={token} onChange={(event) => setToken(event.currentTarget.value)}>
            <option value="native">Native coin</option>
            <option value="usdc">USDC</option>
            <option value="dai">DAI</option>
          </select>
        </label>
      </div>
      <button type="submit" disabled={quoted.state === "running" || Number(megabytes) <= 0}>
        Get a quote
      </button>
      <CallStatus call={quoted} running="Pricing…" />
      {quoted.state === "success" && (
        <>
          <dl aria-label="Quote">
            <dt>Price</dt>
            <dd>
              {quoted.value.price.usd} USD = {amountText(quoted.value.price)}
            </dd>
            <dt>Data limit now</dt>
            <dd>{formatBytes(quoted.value.dataLimit)}</dd>
          </dl>
          <button
            type="button"
            disabled={paid.state === "running"}
            onClick={() => void paid.run(apiKey, wallet, quoted.value.price)}
          >
            Pay {amountText(quoted.value.price)}
          </button>
          <CallStatus call={paid} running="Waiting for the wallet and the chain…" success="Paid." />
          {paid.state === "success" && (
            <dl aria-label="Payment">
              <dt>Transaction</dt>
              <dd>
                <code>{short(paid.value.paid.hash, 10)}</code>
              </dd>
              <dt>Payment number</dt>
              <dd>{String(paid.value.paid.payment?.txId ?? "?")}</dd>
              <dt>Data limit before</dt>
              <dd>{formatBytes(quoted.value.dataLimit)}</dd>
              <dt>Data limit after</dt>
              <dd>{formatBytes(paid.value.dataLimit)}</dd>
              <dt>Bought</dt>
              <dd>{formatBytes(paid.value.dataLimit - quoted.value.dataLimit)}</dd>
            </dl>
          )}
        </>
      )}
    </form>
  )
}
