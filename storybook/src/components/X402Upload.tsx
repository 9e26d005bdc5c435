/**
 * Pay-per-upload over x402: no API key. The network answers the first request with its price
 * (HTTP 402); the wallet signs a USDC transfer authorisation (EIP-3009) for exactly that, when it
 * is on the named network, in its USDC (or the token typed) and at most 0.1 USDC; the network settles it on chain and stores the file. Shows what was paid, the settlement's
 * transaction and the stored CID; a refused payment shows its error, and nothing was stored.
 */
import { Effect } from "effect"
import { Payment } from "lighthouse-effect"
import { useState } from "react"
import type { Address, LocalAccount } from "viem"
import { useEffectCall } from "../runtime/useEffectCall.ts"
import { CallStatus } from "../ui/CallStatus.tsx"
import { DetailsList } from "../ui/DetailsList.tsx"
import { TextField } from "../ui/Field.tsx"

export interface X402UploadProps {
  /** The payer's wallet (a local viem account). */
  readonly account: LocalAccount
  /** The x402 network the payment may be on (`localhost` for the demo chain). */
  readonly network: string
  /** The USDC the payment may be in unless the field names another token; default the network's, where one is known. */
  readonly usdc?: Address | undefined
}

const payAndUpload = Effect.fnUntraced(function* (
  limits: { readonly network: string; readonly asset: Address | undefined },
  account: LocalAccount,
  text: string
) {
  const file = new File([text], "note.txt", { type: "text/plain" })
  // At most 0.1 USDC (the library's default ceiling): a note costs 0.003907.
  return yield* Payment.Payment.use((payment) => payment.x402Upload({ file, account, ...limits }))
})

/** Base units of a 6-decimal token as USDC. */
const asUsdc = (amount: bigint) => `${(Number(amount) / 1e6).toFixed(6)} USDC`

export const X402Upload = ({ account, network, usdc }: X402UploadProps) => {
  const [text, setText] = useState("")
  const [token, setToken] = useState("")
  const call = useEffectCall(payAndUpload)
  return (
    <section className="lh-card" aria-labelledby="x402-title">
      <h2 id="x402-title">Pay per upload (x402)</h2>
      <p>
        Payer <code>{account.address}</code>
      </p>
      <TextField label="Note" value={text} onChange={setText} />
      <TextField
        label="Pay only in token (optional)"
        value={token}
        placeholder="0x… (the network's USDC when empty)"
        onChange={(value) => setToken(value.trim())}
      />
      <button
        type="button"
        disabled={text === "" || call.state === "running"}
        onClick={() => void call.run({ network, asset: token === "" ? usdc : (token as Address) }, account, text)}
      >
        Pay and upload
      </button>
      <CallStatus call={call} running="Asking the price, signing, settling…" success="Paid and stored." />
      {call.state === "success" && (
        <DetailsList
          label="Paid upload"
          rows={[
            { term: "Paid", detail: asUsdc(call.value.paid.amount) },
            { term: "Settled in", detail: <code>{call.value.settlement.transaction}</code> },
            { term: "Stored", detail: <code>{call.value.entry.Hash}</code> }
          ]}
        />
      )}
    </section>
  )
}
