/**
 * Uploads files or a whole folder, plain or encrypted on the device first, with a progress bar
 * fed by the upload's progress callback.
 *
 * Encrypted files each get their own key, split 3-of-5 over the key nodes for `signer`: only that
 * wallet (and whoever it shares with) can recover it.
 */
import { Effect } from "effect"
import { Errors, type Signer, Upload } from "lighthouse-effect"
import { type FormEvent, useState } from "react"
import { useEffectCall } from "../runtime/useEffectCall.ts"
import { CallStatus } from "../ui/CallStatus.tsx"
import { type Column, DetailsTable } from "../ui/DetailsTable.tsx"
import { Choice, type Option } from "../ui/Field.tsx"
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
    // The upload signs the owner in once (`Auth.token`) and reuses the JWT.
    const options = { apiKey: props.apiKey, signer: props.signer, onProgress }
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

type Protection = "public" | "encrypted"

const protections: ReadonlyArray<Option<Protection>> = [
  { value: "public", text: "Public" },
  { value: "encrypted", text: "Encrypted (only I and those I share with can read it)" }
]

/** Two pickers: files (one or several), or a whole folder. */
const FilePickers = ({ onPick }: { readonly onPick: (selection: Selection) => void }) => {
  const pick = (folder: boolean) => (event: { currentTarget: HTMLInputElement }) =>
    onPick({ files: Array.from(event.currentTarget.files ?? []), folder })
  return (
    <>
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
    </>
  )
}

/** A file's path inside the picked folder, else its name. */
const pathOf = (file: File) => file.webkitRelativePath || file.name

const SelectedFiles = ({ files }: { readonly files: ReadonlyArray<File> }) => (
  <ul aria-label="Selected files">
    {files.map((file) => (
      <li key={pathOf(file)}>
        {pathOf(file)} ({formatBytes(file.size)})
      </li>
    ))}
  </ul>
)

/** The share of the request sent when its total is known; else the bytes sent so far. */
const UploadProgress = ({ progress }: { readonly progress: Upload.Progress.Progress }) => {
  const fraction = Upload.Progress.fraction(progress)
  return (
    <div className="lh-progress">
      <progress aria-label="Upload progress" max={1} value={fraction ?? 0} />
      <span>{fraction === undefined ? formatBytes(progress.bytesSent) : `${Math.round(fraction * 100)}%`}</span>
    </div>
  )
}

/** Files that were stored but whose key shards were not saved on every key node, each with why. */
const UnsavedKeys = ({ failed }: { readonly failed: Errors.EncryptedUploadIncomplete["failed"] }) => (
  <ul aria-label="Stored, but their key was not saved">
    {failed.map((failure) => (
      <li key={failure.name}>
        {failure.name}: {unsaved(failure)}
      </li>
    ))}
  </ul>
)

const uploadedColumns: ReadonlyArray<Column<Upload.UploadedEntry>> = [
  { name: "Name", cell: (entry) => (entry.Name === "" ? "(folder)" : entry.Name) },
  { name: "CID", cell: (entry) => <code>{entry.Hash}</code> },
  { name: "Size", cell: (entry) => formatBytes(Number(entry.Size)) }
]

export const UploadFiles = (props: UploadFilesProps) => {
  const [selection, setSelection] = useState<Selection>({ files: [], folder: false })
  const [protection, setProtection] = useState<Protection>("public")
  const [progress, setProgress] = useState<Upload.Progress.Progress | undefined>(undefined)
  const call = useEffectCall(uploadAll)
  const count = selection.files.length

  const submit = (event: FormEvent) => {
    event.preventDefault()
    setProgress(undefined)
    void call.run(selection, protection === "encrypted", props, setProgress)
  }

  return (
    <form className="lh-card" onSubmit={submit} aria-labelledby="upload-title">
      <h2 id="upload-title">Upload</h2>
      <Choice legend="Protection" name="protection" value={protection} options={protections} onChange={setProtection} />
      <FilePickers onPick={setSelection} />
      {count > 0 && <SelectedFiles files={selection.files} />}
      <button type="submit" disabled={count === 0 || call.state === "running"}>
        Upload {count > 0 ? `${count} file(s)` : ""}
      </button>
      {progress !== undefined && <UploadProgress progress={progress} />}
      <CallStatus call={call} running="Uploading…" success="Uploaded." />
      {call.state === "failure" && call.error._tag === "EncryptedUploadIncomplete" && (
        <UnsavedKeys failed={call.error.failed} />
      )}
      {call.state === "success" && (
        <DetailsTable label="Uploaded" columns={uploadedColumns} rows={call.value} rowKey={(entry) => entry.Hash} />
      )}
    </form>
  )
}
