/**
 * Pay-per-upload over x402: no API key. The network answers the first request with its price
 * (HTTP 402); the wallet signs a USDC transfer authorisation (EIP-3009) for exactly that; the
 * network settles it on chain and stores the file. Shows what was paid, the settlement's
 * transaction and the stored CID; a refused payment shows its error, and nothing was stored.
 */
import { Effect } from "effect"
import { useState } from "react"
import type { Address, LocalAccount } from "viem"
import { Payment } from "lighthouse-effect"
import { useEffectCall } from "../runtime/useEffectCall.ts"
import { CallStatus } from "../ui/CallStatus.tsx"
import { DetailsList } from "../ui/DetailsList.tsx"
import { TextField } from "../ui/Field.tsx"

export interface X402UploadProps {
  /** The payer's wallet (a local viem account). */
  readonly account: LocalAccount
}

const payAndUpload = Effect.fnUntraced(function* (account: LocalAccount, token: string, text: string) {
  // Empty: pay in whichever token the network asks for.
  const asset = token === "" ? undefined : (token as Address)
  const file = new File([text], "note.txt", { type: "text/plain" })
  return yield* Payment.Payment.use((payment) => payment.x402Upload({ file, account, asset }))
})

/** Base units of a 6-decimal token as USDC. */
const usdc = (amount: bigint) => `${(Number(amount) / 1e6).toFixed(6)} USDC`

export const X402Upload = ({ account }: X402UploadProps) => {
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
        placeholder="0x… (any the network asks for when empty)"
        onChange={(value) => setToken(value.trim())}
      />
      <button
        type="button"
        disabled={text === "" || call.state === "running"}
        onClick={() => void call.run(account, token, text)}
      >
        Pay and upload
      </button>
      <CallStatus call={call} running="Asking the price, signing, settling…" success="Paid and stored." />
      {call.state === "success" && (
        <DetailsList
          label="Paid upload"
          rows={[
            { term: "Paid", detail: usdc(call.value.paid.amount) },
            { term: "Settled in", detail: <code>{call.value.settlement.transaction}</code> },
            { term: "Stored", detail: <code>{call.value.entry.Hash}</code> }
          ]}
        />
      )}
    </section>
  )
}
