/**
 * What the network knows about a CID: the file's record, its storage deals with Filecoin
 * providers, and the proof that the file is inside a deal's piece (PoDSI) once a deal is made.
 */
import { Effect } from "effect"
import { type Errors, Files } from "lighthouse-effect"
import { type FormEvent, useState } from "react"
import { useEffectCall } from "../runtime/useEffectCall.ts"
import { CallStatus } from "../ui/CallStatus.tsx"
import { DetailsList } from "../ui/DetailsList.tsx"
import { type Column, DetailsTable } from "../ui/DetailsTable.tsx"
import { TextField } from "../ui/Field.tsx"
import { formatBytes, short } from "../ui/format.ts"

const lookUp = Effect.fnUntraced(function* (cid: string) {
  const files = yield* Files.Files
  const info = yield* files.fileInfo(cid)
  const [deals, proof] = yield* Effect.all(
    [
      files.dealStatus(cid),
      // No proof before the first deal: an expected state, shown as such.
      files.proof(cid).pipe(Effect.catchTag("ProofNotFound", (error) => Effect.succeed(error)))
    ],
    { concurrency: 2 }
  )
  return { info, deals, proof }
})

const FileRecord = ({ info }: { readonly info: Files.FileInfo }) => (
  <DetailsList
    label="File"
    rows={[
      { term: "Name", detail: info.fileName },
      { term: "Size", detail: formatBytes(Number(info.fileSizeInBytes)) },
      { term: "Type", detail: info.mimeType ?? "unknown" },
      { term: "Encrypted", detail: info.encryption ? "yes" : "no" }
    ]}
  />
)

const dealColumns: ReadonlyArray<Column<Files.Deal>> = [
  { name: "Deal", cell: (deal) => deal.DealID },
  { name: "Provider", cell: (deal) => deal.Provider },
  { name: "Status", cell: (deal) => deal.dealStatus ?? "" },
  { name: "Piece", cell: (deal) => <code title={deal.pieceCID}>{short(deal.pieceCID ?? "", 10)}</code> }
]

/** `f01234` for the actor number `1234` a proof names, as deals name providers. */
const providerAddress = (storageProvider: string) =>
  /^\d+$/.test(storageProvider) ? `f0${storageProvider}` : storageProvider

/** The piece holding the file and, per deal, where the file sits in it; or why there is no proof yet. */
const ProofDetails = ({ proof }: { readonly proof: Files.Proof | Errors.ProofNotFound }) =>
  "_tag" in proof ? (
    <p>{proof.message}</p>
  ) : (
    <DetailsList
      label="Proof"
      rows={[
        { term: "Piece", detail: <code>{proof.pieceCID}</code> },
        ...proof.dealInfo.map((deal) => ({
          term: `Deal ${deal.dealId}`,
          detail: `${providerAddress(deal.storageProvider)}: inclusion proof at index ${deal.proof.inclusionProof.proofSubtree.index}, ${deal.proof.inclusionProof.proofSubtree.path.length} hashes`
        }))
      ]}
    />
  )

export const FileDetails = () => {
  const [cid, setCid] = useState("")
  const call = useEffectCall(lookUp)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    void call.run(cid)
  }

  return (
    <form className="lh-card" onSubmit={submit} aria-labelledby="details-title">
      <h2 id="details-title">File details</h2>
      <div className="lh-row">
        <TextField label="CID" size={62} value={cid} onChange={(value) => setCid(value.trim())} />
        <button type="submit" disabled={cid === "" || call.state === "running"}>
          Look up
        </button>
      </div>
      <CallStatus call={call} running="Looking up…" />
      {call.state === "success" && (
        <>
          <h3>File</h3>
          <FileRecord info={call.value.info} />
          <h3>Deals</h3>
          <DetailsTable
            label="Deals"
            columns={dealColumns}
            rows={call.value.deals}
            rowKey={(deal) => String(deal.DealID)}
            empty="No deal yet."
          />
          <h3>Proof</h3>
          <ProofDetails proof={call.value.proof} />
        </>
      )}
    </form>
  )
}
