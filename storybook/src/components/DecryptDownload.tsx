/**
 * Opens an encrypted file: signs in to the key nodes, recovers the file's key from 3 of the 5
 * nodes (the others stand in when one is down), downloads the file with every block checked
 * against its CID, decrypts it on the device, then previews it (images and text), says whether it
 * was verified and offers it to save. A gateway that answers other bytes is shown as the error
 * that names the CID and what was wrong.
 */
import { Effect } from "effect"
import { Download, Files, KeyShards, type Signer } from "lighthouse-effect"
import { type FormEvent, useEffect, useMemo, useState } from "react"
import { useEffectCall } from "../runtime/useEffectCall.ts"
import { CallStatus } from "../ui/CallStatus.tsx"
import { TextField } from "../ui/Field.tsx"
import { formatBytes } from "../ui/format.ts"

export interface DecryptDownloadProps {
  /** Who asks: the owner, someone it was shared with, or someone meeting its access conditions. */
  readonly signer: Signer.Service
}

const open = Effect.fnUntraced(function* (signer: Signer.Service, cid: string) {
  const info = yield* Files.Files.use((files) => files.fileInfo(cid))
  // `fetchKey` does both steps; they are split here to show which nodes answered.
  const { shards, nodes } = yield* KeyShards.KeyShards.use((keys) => keys.recover({ cid, signer }))
  const masterKey = yield* KeyShards.recoverKey(shards, { threshold: 3 })
  const { bytes, verification } = yield* Download.Download.use((download) =>
    download.retrieve(cid, { decrypt: { masterKey } })
  )
  return { info, nodes, bytes, verification }
})

export const DecryptDownload = ({ signer }: DecryptDownloadProps) => {
  const [cid, setCid] = useState("")
  const call = useEffectCall(open)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    void call.run(signer, cid)
  }

  const file = call.state === "success" ? call.value : undefined
  const mimeType = file?.info.mimeType ?? "application/octet-stream"
  // One object URL per decrypted file, released when it is replaced or the component goes.
  const url = useMemo(
    () =>
      file === undefined ? undefined : URL.createObjectURL(new Blob([file.bytes as BlobPart], { type: mimeType })),
    [file, mimeType]
  )
  useEffect(() => () => (url === undefined ? undefined : URL.revokeObjectURL(url)), [url])

  return (
    <form className="lh-card" onSubmit={submit} aria-labelledby="decrypt-title">
      <h2 id="decrypt-title">Open an encrypted file</h2>
      <TextField label="File CID" value={cid} onChange={(value) => setCid(value.trim())} />
      <button type="submit" disabled={cid === "" || call.state === "running"}>
        Recover the key and decrypt
      </button>
      <CallStatus call={call} running="Recovering the key…" success="Decrypted." />
      {file !== undefined && url !== undefined && (
        <section aria-label="Decrypted file" className="lh-preview">
          <p>
            Key recovered from key nodes {file.nodes.join(", ")}. {file.info.fileName}, {mimeType},{" "}
            {formatBytes(file.bytes.length)}.
          </p>
          <p>
            {file.verification.verified
              ? `Verified: every block checked against ${cid}.`
              : `Not verified: ${file.verification.reason}.`}
          </p>
          {mimeType.startsWith("image/") && <img src={url} alt={file.info.fileName} />}
          {mimeType.startsWith("text/") && <pre>{new TextDecoder().decode(file.bytes)}</pre>}
          <a href={url} download={file.info.fileName}>
            Save {file.info.fileName}
          </a>
        </section>
      )}
    </form>
  )
}
