/**
 * Uploads files or a whole folder, plain or encrypted on the device first, with a progress bar
 * fed by the upload's progress callback.
 *
 * Encrypted files each get their own key, split 3-of-5 over the key nodes for `signer`: only that
 * wallet (and whoever it shares with) can recover it.
 */
import { Effect } from "effect"
import { type FormEvent, useState } from "react"
import { Auth, Errors, Upload, type Signer } from "lighthouse-effect"
import { useEffectCall } from "../runtime/useEffectCall.ts"
import { CallStatus } from "../ui/CallStatus.tsx"
import { formatBytes } from "../ui/format.ts"

export interface UploadFilesProps {
  /** The account's API key. */
  readonly apiKey: string
  /** Owner of encrypted files: their key shards are saved for this wallet. */
  readonly signer: Signer.Service
}

interface Selection {
  readonly files: ReadonlyArray<File>
  /** Picked with the folder input: uploaded as that folder. */
  readonly folder: boolean
}

const uploadAll = Effect.fnUntraced(function* (
  selection: Selection,
  encrypted: boolean,
  props: UploadFilesProps,
  onProgress: (progress: Upload.Progress.Progress) => void
) {
  const upload = yield* Upload.Upload
  const { files, folder } = selection
  const single = files.length === 1 && !folder ? files[0] : undefined
  if (encrypted) {
    // The key nodes take a JWT for the owner; `token` signs in once and reuses it.
    const token = yield* Auth.Auth.use((auth) => auth.token(props.signer))
    const options = { apiKey: props.apiKey, address: props.signer.address, token, onProgress }
    return single === undefined
      ? yield* upload.encryptedFiles(Upload.Input.files(files), options)
      : [yield* upload.encryptedFile(single, options)]
  }
  const options = { apiKey: props.apiKey, onProgress }
  return single === undefined
    ? [yield* upload.folder(Upload.Input.files(files), options)]
    : [yield* upload.file(single, options)]
})

/** Why a file's key shards were not saved, naming the key node that refused them when one did. */
const unsaved = (failure: { readonly reason: string; readonly cause?: unknown }): string => {
  const node = failure.cause instanceof Errors.EncryptionFailed ? failure.cause.cause : undefined
  if (!(node instanceof Errors.NodeError)) return failure.reason
  const saved = node.succeededNodes ?? []
  return `key node ${node.nodeId}: ${node.message}${saved.length > 0 ? ` (nodes ${saved.join(", ")} hold their shard)` : ""}`
}

export const UploadFiles = (props: UploadFilesProps) => {
  const [selection, setSelection] = useState<Selection>({ files: [], folder: false })
  const [encrypted, setEncrypted] = useState(false)
  const [progress, setProgress] = useState<Upload.Progress.Progress | undefined>(undefined)
  const call = useEffectCall(uploadAll)

  const pick = (folder: boolean) => (event: { currentTarget: HTMLInputElement }) =>
    setSelection({ files: Array.from(event.currentTarget.files ?? []), folder })

  const submit = (event: FormEvent) => {
    event.preventDefault()
    setProgress(undefined)
    void call.run(selection, encrypted, props, setProgress)
  }

  const fraction = progress === undefined ? undefined : Upload.Progress.fraction(progress)
  return (
    <form className="lh-card" onSubmit={submit} aria-labelledby="upload-title">
      <h2 id="upload-title">Upload</h2>
      <fieldset>
        <legend>Protection</legend>
        <label>
          <input type="radio" name="protection" checked={!encrypted} onChange={() => setEncrypted(false)} /> Public
        </label>
        <label>
          <input type="radio" name="protection" checked={encrypted} onChange={() => setEncrypted(true)} /> Encrypted
          (only I and those I share with can read it)
        </label>
      </fieldset>
      <label className="lh-field">
        Files
        <input type="file" multiple onChange={pick(false)} />
      </label>
      <label className="lh-field">
        Or a folder
        <input
          type="file"
          multiple
          onChange={pick(true)}
          // Not a React prop: set on the element so the browser offers a folder picker.
          ref={(input) => {
            if (input !== null) input.webkitdirectory = true
          }}
        />
      </label>
      {selection.files.length > 0 && (
        <ul aria-label="Selected files">
          {selection.files.map((file) => (
            <li key={file.webkitRelativePath || file.name}>
              {file.webkitRelativePath || file.name} ({formatBytes(file.size)})
            </li>
          ))}
        </ul>
      )}
      <button type="submit" disabled={selection.files.length === 0 || call.state === "running"}>
        Upload {selection.files.length > 0 ? `${selection.files.length} file(s)` : ""}
      </button>
      {progress !== undefined && (
        <div className="lh-progress">
          <progress aria-label="Upload progress" max={1} value={fraction ?? 0} />
          <span>{fraction === undefined ? formatBytes(progress.bytesSent) : `${Math.round(fraction * 100)}%`}</span>
        </div>
      )}
      <CallStatus call={call} running="Uploading…" success="Uploaded." />
      {call.state === "failure" && call.error._tag === "EncryptedUploadIncomplete" && (
        <ul aria-label="Stored, but their key was not saved">
          {call.error.failed.map((f) => (
            <li key={f.name}>
              {f.name}: {unsaved(f)}
            </li>
          ))}
        </ul>
      )}
      {call.state === "success" && (
        <table aria-label="Uploaded">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">CID</th>
              <th scope="col">Size</th>
            </tr>
          </thead>
          <tbody>
            {call.value.map((entry) => (
              <tr key={entry.Hash}>
                <td>{entry.Name === "" ? "(folder)" : entry.Name}</td>
                <td>
                  <code>{entry.Hash}</code>
                </td>
                <td>{formatBytes(Number(entry.Size))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </form>
  )
}
