/**
 * Who may decrypt a file, managed by its owner: share it with an address, revoke that address,
 * or hand the file over to a new owner. Each change goes to all 5 key nodes; the list shown
 * afterwards is what the nodes now hold.
 */
import { Effect } from "effect"
import { AccessControl, type Signer } from "lighthouse-effect"
import { useState } from "react"
import { useEffectCall } from "../runtime/useEffectCall.ts"
import { CallStatus } from "../ui/CallStatus.tsx"
import { DetailsList } from "../ui/DetailsList.tsx"
import { TextField } from "../ui/Field.tsx"

export interface ShareAccessProps {
  /** The file's owner. */
  readonly signer: Signer.Service
}

type Change =
  | { readonly kind: "share" | "revoke"; readonly address: string }
  | { readonly kind: "transfer"; readonly address: string; readonly resetSharedTo: boolean }

const done: Record<Change["kind"], string> = {
  share: "Shared.",
  revoke: "Access revoked.",
  transfer: "Ownership transferred."
}

const change = Effect.fnUntraced(function* (signer: Signer.Service, cid: string, request: Change) {
  const accessControl = yield* AccessControl.AccessControl
  const common = { signer, cid }
  switch (request.kind) {
    case "share":
      yield* accessControl.share({ ...common, shareTo: [request.address] })
      break
    case "revoke":
      yield* accessControl.revoke({ ...common, revokeTo: [request.address] })
      break
    case "transfer":
      yield* accessControl.transferOwnership({
        ...common,
        newOwner: request.address,
        resetSharedTo: request.resetSharedTo
      })
  }
  return { kind: request.kind, record: yield* accessControl.get(cid) }
})

const SharedWith = ({ addresses }: { readonly addresses: ReadonlyArray<string> }) =>
  addresses.length === 0 ? (
    "nobody"
  ) : (
    <ul>
      {addresses.map((address) => (
        <li key={address}>
          <code>{address}</code>
        </li>
      ))}
    </ul>
  )

export const ShareAccess = ({ signer }: ShareAccessProps) => {
  const [cid, setCid] = useState("")
  const [address, setAddress] = useState("")
  const [resetSharedTo, setResetSharedTo] = useState(true)
  const call = useEffectCall(change)
  const ready = cid !== "" && address !== "" && call.state !== "running"
  const run = (request: Change) => void call.run(signer, cid, request)

  return (
    <section className="lh-card" aria-labelledby="share-title">
      <h2 id="share-title">Share access</h2>
      <TextField label="File CID" value={cid} onChange={(value) => setCid(value.trim())} />
      <TextField label="Address" value={address} placeholder="0x…" onChange={(value) => setAddress(value.trim())} />
      <div className="lh-row">
        <button type="button" disabled={!ready} onClick={() => run({ kind: "share", address })}>
          Share
        </button>
        <button type="button" disabled={!ready} onClick={() => run({ kind: "revoke", address })}>
          Revoke
        </button>
        <button type="button" disabled={!ready} onClick={() => run({ kind: "transfer", address, resetSharedTo })}>
          Transfer ownership
        </button>
        <label>
          <input
            type="checkbox"
            checked={resetSharedTo}
            onChange={(event) => setResetSharedTo(event.currentTarget.checked)}
          />{" "}
          Clear the shared list on transfer
        </label>
      </div>
      <CallStatus
        call={call}
        running="Updating the 5 key nodes…"
        {...(call.state === "success" ? { success: done[call.value.kind] } : {})}
      />
      {call.state === "success" && (
        <DetailsList
          label="Access on the key nodes"
          rows={[
            { term: "Owner", detail: <code>{call.value.record.owner}</code> },
            { term: "Shared with", detail: <SharedWith addresses={call.value.record.sharedTo} /> }
          ]}
        />
      )}
    </section>
  )
}
