/**
 * The account at a glance: storage used against its limit, and its uploads, newest first, a page
 * at a time (the API's cursor is the last record of the page before).
 */
import { Effect } from "effect"
import { Files } from "lighthouse-effect"
import { useEffect, useState } from "react"
import { useEffectCall } from "../runtime/useEffectCall.ts"
import { CallStatus } from "../ui/CallStatus.tsx"
import { type Column, DetailsTable } from "../ui/DetailsTable.tsx"
import { formatBytes, short } from "../ui/format.ts"

export interface UsageAndUploadsProps {
  readonly apiKey: string
}

const load = Effect.fnUntraced(function* (apiKey: string, lastKey: string | undefined) {
  const files = yield* Files.Files
  const [usage, page] = yield* Effect.all([files.usage(apiKey), files.uploadsPage(apiKey, { lastKey })], {
    concurrency: 2
  })
  return { usage, page }
})

/** `2026-11-21 08:12`, the same in every locale. */
const when = (millis: number) => new Date(millis).toISOString().slice(0, 16).replace("T", " ")

const uploadColumns: ReadonlyArray<Column<Files.UploadedFile>> = [
  { name: "Name", cell: (file) => file.fileName },
  { name: "CID", cell: (file) => <code title={file.cid}>{short(file.cid, 10)}</code> },
  { name: "Size", cell: (file) => formatBytes(Number(file.fileSizeInBytes)) },
  { name: "Encrypted", cell: (file) => (file.encryption ? "yes" : "no") },
  { name: "Uploaded (UTC)", cell: (file) => when(file.createdAt) }
]

export const UsageAndUploads = ({ apiKey }: UsageAndUploadsProps) => {
  const call = useEffectCall(load)
  // The cursor of each page shown so far (`undefined` for the first) and where each page starts.
  const [pages, setPages] = useState<ReadonlyArray<{ readonly lastKey: string | undefined; readonly start: number }>>([
    { lastKey: undefined, start: 0 }
  ])
  const current = pages.at(-1)!
  const { run } = call
  useEffect(() => {
    void run(apiKey, current.lastKey)
  }, [run, apiKey, current.lastKey])

  const data = call.state === "success" ? call.value : undefined
  const shown = data?.page.fileList ?? []
  const end = current.start + shown.length
  const next = () => {
    const last = shown.at(-1)
    if (last !== undefined) setPages([...pages, { lastKey: last.id, start: end }])
  }

  return (
    <section className="lh-card" aria-labelledby="usage-title">
      <h2 id="usage-title">Usage and uploads</h2>
      <CallStatus call={call} running="Loading…" />
      {data !== undefined && (
        <>
          <div className="lh-progress">
            <meter aria-label="Storage used" min={0} max={data.usage.dataLimit} value={data.usage.dataUsed} />
            <span>
              {formatBytes(data.usage.dataUsed)} of {formatBytes(data.usage.dataLimit)} used
            </span>
          </div>
          {data.page.totalFiles === 0 ? (
            <p>No uploads yet.</p>
          ) : (
            <>
              <DetailsTable label="Uploads" columns={uploadColumns} rows={shown} rowKey={(file) => file.id} />
              <nav className="lh-row" aria-label="Pages">
                <button type="button" disabled={pages.length === 1} onClick={() => setPages(pages.slice(0, -1))}>
                  Previous page
                </button>
                <span>
                  Files {current.start + 1}–{end} of {data.page.totalFiles}
                </span>
                <button type="button" disabled={end >= data.page.totalFiles} onClick={next}>
                  Next page
                </button>
              </nav>
            </>
          )}
        </>
      )}
    </section>
  )
}
