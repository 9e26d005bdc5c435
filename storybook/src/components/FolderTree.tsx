/**
 * A folder's tree, as `Download.list` reads it: every entry with its size and CID, from one
 * trustless CAR whose every block is checked, so the listing is verified like a download. Entries
 * a download would refuse (a name that escapes the folder, a symlink) are shown with why.
 */
import { Effect } from "effect"
import { Download } from "lighthouse-effect"
import { type FormEvent, useState } from "react"
import { useEffectCall } from "../runtime/useEffectCall.ts"
import { CallStatus } from "../ui/CallStatus.tsx"
import { type Column, DetailsTable } from "../ui/DetailsTable.tsx"
import { TextField } from "../ui/Field.tsx"
import { formatBytes, short } from "../ui/format.ts"

const listTree = Effect.fnUntraced(function* (cid: string) {
  const download = yield* Download.Download
  return yield* download.list(cid, { recursive: true })
})

/** `photos/2024/b.jpg` shown as `b.jpg`, indented under its folders; a folder ends with `/`. */
const nameCell = (entry: Download.TreeEntry) => {
  const segments = entry.path.split("/")
  const name = `${segments.at(-1)}${entry.type === "folder" ? "/" : ""}`
  return <span style={{ paddingInlineStart: `${(segments.length - 1) * 1.25}em` }}>{name}</span>
}

const entryColumns: ReadonlyArray<Column<Download.TreeEntry>> = [
  { name: "Name", cell: nameCell },
  { name: "Type", cell: (entry) => entry.type },
  { name: "Size", cell: (entry) => (entry.type === "file" ? formatBytes(entry.size) : "") },
  {
    name: "CID",
    cell: (entry) => (entry.type === "refused" ? entry.reason : <code title={entry.cid}>{short(entry.cid, 10)}</code>)
  }
]

/** `3 files in 2 folders, 1.2 KB`. */
const summary = (entries: ReadonlyArray<Download.TreeEntry>) => {
  const files = entries.flatMap((entry) => (entry.type === "file" ? [entry.size] : []))
  const folders = entries.filter((entry) => entry.type === "folder").length
  const bytes = files.reduce((sum, size) => sum + size, 0)
  return `${files.length} files in ${folders} folders, ${formatBytes(bytes)}, every block verified`
}

export const FolderTree = () => {
  const [cid, setCid] = useState("")
  const call = useEffectCall(listTree)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    void call.run(cid)
  }

  return (
    <form className="lh-card" onSubmit={submit} aria-labelledby="tree-title">
      <h2 id="tree-title">Folder tree</h2>
      <div className="lh-row">
        <TextField label="Folder CID" size={62} value={cid} onChange={(value) => setCid(value.trim())} />
        <button type="submit" disabled={cid === "" || call.state === "running"}>
          List
        </button>
      </div>
      <CallStatus call={call} running="Listing…" />
      {call.state === "success" && (
        <>
          <p>{summary(call.value)}</p>
          <DetailsTable
            label="Folder entries"
            columns={entryColumns}
            rows={call.value}
            rowKey={(entry) => entry.path}
            empty="The folder is empty."
          />
        </>
      )}
    </form>
  )
}
