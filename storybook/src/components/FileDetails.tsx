/**
 * What the network knows about a CID: the file's record, its storage deals with Filecoin
 * providers, and the proof that the file is inside a deal's piece (PoDSI) once a deal is made.
 */
import { Effect } from "effect"
import { type FormEvent, useState } from "react"
import { Files } from "lighthouse-effect"
import { useEffectCall } from "../runtime/useEffectCall.ts"
import { CallStatus } from "../ui/CallStatus.tsx"
import { formatBytes, short } from "../ui/format.ts"

// Proofs name a provider by its actor number (`1234`), deals by its address (`f01234`): shown as the latter.
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

export const FileDetails = () => {
  const [cid, setCid] = useState("")
  const call = useEffectCall(lookUp)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    void call.run(cid)
  }
  const found = call.state === "success" ? call.value : undefined

  return (
    <form className="lh-card" onSubmit={submit} aria-labelledby="details-title">
      <h2 id="details-title">File details</h2>
      <div className="lh-row">
        <label className="lh-field">
          CID
          <input size={62} value={cid} onChange={(event) => setCid(event.currentTarget.value.trim())} />
        </label>
        <button type="submit" disabled={cid === "" || call.state === "running"}>
          Look up
        </button>
      </div>
      <CallStatus call={call} running="Looking up…" />
      {found !== undefined && (
        <>
          <h3>File</h3>
          <dl aria-label="File">
            <dt>Name</dt>
            <dd>{found.info.fileName}</dd>
            <dt>Size</dt>
            <dd>{formatBytes(Number(found.info.fileSizeInBytes))}</dd>
            <dt>Type</dt>
            <dd>{found.info.mimeType ?? "unknown"}</dd>
            <dt>Encrypted</dt>
            <dd>{found.info.encryption ? "yes" : "no"}</dd>
          </dl>
          <h3>Deals</h3>
          {found.deals.length === 0 ? (
            <p>No deal yet.</p>
          ) : (
            <table aria-label="Deals">
              <thead>
                <tr>
                  <th scope="col">Deal</th>
                  <th scope="col">Provider</th>
                  <th scope="col">Status</th>
                  <th scope="col">Piece</th>
                </tr>
              </thead>
              <tbody>
                {found.deals.map((deal) => (
                  <tr key={deal.DealID}>
                    <td>{deal.DealID}</td>
                    <td>{deal.Provider}</td>
                    <td>{deal.dealStatus ?? ""}</td>
                    <td>
                      <code title={deal.pieceCID}>{short(deal.pieceCID ?? "", 10)}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <h3>Proof</h3>
          {"_tag" in found.proof ? (
            <p>{found.proof.message}</p>
          ) : (
            <dl aria-label="Proof">
              <dt>Piece</dt>
              <dd>
                <code>{found.proof.pieceCID}</code>
              </dd>
              {found.proof.dealInfo.map((deal) => (
                <div key={deal.dealId}>
                  <dt>Deal {deal.dealId}</dt>
                  <dd>
                    {/^\d+$/.test(deal.storageProvider) ? `f0${deal.storageProvider}` : deal.storageProvider}: inclusion
                    proof at index {deal.proof.inclusionProof.proofSubtree.index},{" "}
                    {deal.proof.inclusionProof.proofSubtree.path.length} hashes
                  </dd>
                </div>
              ))}
            </dl>
          )}
        </>
      )}
    </form>
  )
}
