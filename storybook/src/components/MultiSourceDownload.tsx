/**
 * Downloads a CID from several gateways at once, trusting none of them: every block is checked
 * against the CID as it arrives, so a gateway that fails, stalls or lies is dropped and the
 * others serve the rest. Shows the per-source report: the verified bytes each gateway served and
 * why one was dropped (`lied: block … had other bytes`, `HTTP 429`).
 */
import { Effect } from "effect"
import { Download } from "lighthouse-effect"
import { type FormEvent, useState } from "react"
import { useEffectCall } from "../runtime/useEffectCall.ts"
import { CallStatus } from "../ui/CallStatus.tsx"
import { type Column, DetailsTable } from "../ui/DetailsTable.tsx"
import { SelectField, TextField } from "../ui/Field.tsx"
import { formatBytes } from "../ui/format.ts"

export interface MultiSourceDownloadProps {
  /** The trustless gateways to read from (base URLs, or the names `"gateway"` and `"public"`). */
  readonly sources: ReadonlyArray<string>
}

type Strategy = "split" | "fallback" | "race"

const strategies = [
  { value: "split", text: "split: ranges from every gateway in parallel" },
  { value: "fallback", text: "fallback: one gateway at a time, in order" },
  { value: "race", text: "race: the first good answer wins" }
] as const

const fetchFrom = Effect.fnUntraced(function* (cid: string, sources: ReadonlyArray<string>, strategy: Strategy) {
  const download = yield* Download.Download
  // Split: small ranges, so that even a small file is shared among the gateways (the other
  // strategies take no ranges and refuse the option).
  const options = strategy === "split" ? { sources, strategy, rangeSize: 256 * 1024 } : { sources, strategy }
  const { bytes, verification } = yield* download.retrieve(cid, options)
  return { size: bytes.length, verified: verification.verified, sources: verification.sources ?? [] }
})

const sourceColumns: ReadonlyArray<Column<Download.SourceReport>> = [
  { name: "Gateway", cell: (source) => new URL(source.gateway).host },
  { name: "Verified bytes served", cell: (source) => formatBytes(source.bytes) },
  { name: "Outcome", cell: (source) => (source.dropped === undefined ? "kept" : `dropped: ${source.dropped}`) }
]

export const MultiSourceDownload = ({ sources }: MultiSourceDownloadProps) => {
  const [cid, setCid] = useState("")
  const [strategy, setStrategy] = useState<Strategy>("split")
  const call = useEffectCall(fetchFrom)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    void call.run(cid, sources, strategy)
  }
  const result = call.state === "success" ? call.value : undefined

  return (
    <form className="lh-card" onSubmit={submit} aria-labelledby="sources-title">
      <h2 id="sources-title">Download from several gateways</h2>
      <TextField label="CID" value={cid} onChange={(value) => setCid(value.trim())} />
      <SelectField label="Strategy" value={strategy} options={strategies} onChange={setStrategy} />
      <button type="submit" disabled={cid === "" || call.state === "running"}>
        Download from {sources.length} gateways
      </button>
      <CallStatus call={call} running="Downloading…" success="Downloaded." />
      {result !== undefined && (
        <section aria-label="Per-source report">
          <p>
            {formatBytes(result.size)}
            {result.verified ? `, every block checked against ${cid}.` : ", not verified."}
          </p>
          <DetailsTable
            label="Sources"
            columns={sourceColumns}
            rows={result.sources}
            rowKey={(source) => source.gateway}
          />
        </section>
      )}
    </form>
  )
}
