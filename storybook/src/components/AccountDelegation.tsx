/**
 * Account delegation, from both sides. The owner lets an address recover the key of every file it
 * owns, or revokes all its delegates (each change on the 5 key nodes). The delegate opens one of
 * the owner's encrypted files with its own sign-in, naming the owner: the key nodes release the
 * shards only while the delegation stands.
 */
import { Effect } from "effect"
import { AccessControl, Download, KeyShards, type Signer } from "lighthouse-effect"
import { useState } from "react"
import { useEffectCall } from "../runtime/useEffectCall.ts"
import { CallStatus } from "../ui/CallStatus.tsx"
import { DetailsList } from "../ui/DetailsList.tsx"
import { TextField } from "../ui/Field.tsx"

export interface AccountDelegationProps {
  /** Who delegates: the owner of the files. */
  readonly owner: Signer.Service
  /** Who opens one of the owner's files. */
  readonly delegate: Signer.Service
}

type Change = { readonly kind: "grant"; readonly address: string } | { readonly kind: "revoke" }

const changeDelegates = Effect.fnUntraced(function* (owner: Signer.Service, request: Change) {
  const accessControl = yield* AccessControl.AccessControl
  const result =
    request.kind === "grant"
      ? yield* accessControl.delegateAllFiles({ signer: owner, delegates: [request.address] })
      : yield* accessControl.revokeDelegates({ signer: owner })
  return { kind: request.kind, nodes: result.reports.map((report) => report.nodeId) }
})

const openAsDelegate = Effect.fnUntraced(function* (delegate: Signer.Service, ownerAddress: string, cid: string) {
  const masterKey = yield* KeyShards.KeyShards.use((keys) => keys.fetchKey({ cid, signer: delegate, ownerAddress }))
  const { bytes } = yield* Download.Download.use((download) => download.retrieve(cid, { decrypt: { masterKey } }))
  return new TextDecoder().decode(bytes)
})

const OwnerSide = ({ owner }: { readonly owner: Signer.Service }) => {
  const [address, setAddress] = useState("")
  const call = useEffectCall(changeDelegates)
  const busy = call.state === "running"
  return (
    <section aria-labelledby="delegate-owner-title">
      <h3 id="delegate-owner-title">Owner</h3>
      <p>
        <code>{owner.address}</code>
      </p>
      <TextField
        label="Delegate address"
        value={address}
        placeholder="0x…"
        onChange={(value) => setAddress(value.trim())}
      />
      <div className="lh-row">
        <button
          type="button"
          disabled={address === "" || busy}
          onClick={() => void call.run(owner, { kind: "grant", address })}
        >
          Delegate all files
        </button>
        <button type="button" disabled={busy} onClick={() => void call.run(owner, { kind: "revoke" })}>
          Revoke all delegates
        </button>
      </div>
      <CallStatus
        call={call}
        running="Updating the 5 key nodes…"
        {...(call.state === "success"
          ? {
              success: `${call.value.kind === "grant" ? "Delegated" : "Delegates revoked"} on key nodes ${call.value.nodes.join(", ")}.`
            }
          : {})}
      />
    </section>
  )
}

const DelegateSide = ({
  delegate,
  ownerAddress
}: {
  readonly delegate: Signer.Service
  readonly ownerAddress: string
}) => {
  const [cid, setCid] = useState("")
  const call = useEffectCall(openAsDelegate)
  return (
    <section aria-labelledby="delegate-reader-title">
      <h3 id="delegate-reader-title">Delegate</h3>
      <p>
        <code>{delegate.address}</code>
      </p>
      <TextField label="Owner's file CID" value={cid} onChange={(value) => setCid(value.trim())} />
      <button
        type="button"
        disabled={cid === "" || call.state === "running"}
        onClick={() => void call.run(delegate, ownerAddress, cid)}
      >
        Open as delegate
      </button>
      <CallStatus call={call} running="Recovering the key as a delegate…" success="Opened." />
      {call.state === "success" && (
        <DetailsList
          label="Opened file"
          rows={[
            { term: "Owner", detail: <code>{ownerAddress}</code> },
            { term: "Content", detail: <pre>{call.value}</pre> }
          ]}
        />
      )}
    </section>
  )
}

export const AccountDelegation = ({ owner, delegate }: AccountDelegationProps) => (
  <section className="lh-card" aria-labelledby="delegation-title">
    <h2 id="delegation-title">Account delegation</h2>
    <OwnerSide owner={owner} />
    <DelegateSide delegate={delegate} ownerAddress={owner.address} />
  </section>
)
