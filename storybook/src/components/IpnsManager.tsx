/**
 * The account's IPNS names: create a key, point it at a CID (and again when the content changes:
 * the name stays), see where each name points, remove a key.
 */
import { Effect } from "effect"
import { Ipns } from "lighthouse-effect"
import { useCallback, useEffect, useState } from "react"
import { useEffectCall } from "../runtime/useEffectCall.ts"
import { CallStatus } from "../ui/CallStatus.tsx"
import { type Column, DetailsTable } from "../ui/DetailsTable.tsx"
import { plainOptions, SelectField, TextField } from "../ui/Field.tsx"

export interface IpnsManagerProps {
  readonly apiKey: string
}

type Action =
  | { readonly kind: "list" }
  | { readonly kind: "generate" }
  | { readonly kind: "publish"; readonly keyName: string; readonly cid: string }
  | { readonly kind: "remove"; readonly keyName: string }

/** Does the action, then reads the keys back: the table always shows what the API holds. */
const act = Effect.fnUntraced(function* (apiKey: string, action: Action) {
  const ipns = yield* Ipns.Ipns
  let done = ""
  switch (action.kind) {
    case "generate":
      done = `Key ${(yield* ipns.generateKey(apiKey)).ipnsName} created.`
      break
    case "publish": {
      const record = yield* ipns.publishRecord(apiKey, { cid: action.cid, keyName: action.keyName })
      done = `Published ${record.Value} as /ipns/${record.Name}.`
      break
    }
    case "remove":
      yield* ipns.removeKey(apiKey, action.keyName)
      done = `Key ${action.keyName} removed.`
  }
  return { done, records: yield* ipns.records(apiKey) }
})

/** The account's keys as last read (kept on screen while the next action runs), and `perform` to act on them. */
const useIpnsKeys = (apiKey: string) => {
  const call = useEffectCall(act)
  const [records, setRecords] = useState<ReadonlyArray<Ipns.IpnsRecord> | undefined>(undefined)
  const { run } = call
  const perform = useCallback(
    async (action: Action) => {
      const exit = await run(apiKey, action)
      if (exit._tag === "Success") setRecords(exit.value.records)
    },
    [run, apiKey]
  )
  useEffect(() => {
    void perform({ kind: "list" })
  }, [perform])
  return { call, records, perform }
}

interface KeysTableProps {
  readonly records: ReadonlyArray<Ipns.IpnsRecord>
  readonly busy: boolean
  readonly onRemove: (keyName: string) => void
}

const KeysTable = ({ records, busy, onRemove }: KeysTableProps) => {
  const columns: ReadonlyArray<Column<Ipns.IpnsRecord>> = [
    { name: "Key", cell: (record) => record.ipnsName },
    { name: "IPNS name", cell: (record) => <code>{record.ipnsId}</code> },
    { name: "Points to", cell: (record) => (record.cid === null ? "nothing yet" : <code>{record.cid}</code>) },
    {
      name: "Actions",
      hidden: true,
      cell: (record) => (
        <button type="button" disabled={busy} onClick={() => onRemove(record.ipnsName)}>
          Remove {record.ipnsName}
        </button>
      )
    }
  ]
  return (
    <DetailsTable
      label="Keys"
      columns={columns}
      rows={records}
      rowKey={(record) => record.ipnsName}
      empty="No keys yet."
    />
  )
}

interface PublishFormProps {
  /** At least one. */
  readonly records: ReadonlyArray<Ipns.IpnsRecord>
  /** The key picked (empty or gone: the first) and the CID typed. */
  readonly keyName: string
  readonly cid: string
  readonly onKeyName: (keyName: string) => void
  readonly onCid: (cid: string) => void
  readonly busy: boolean
  readonly onPublish: (keyName: string) => void
}

/** Points one of the keys at a CID. */
const PublishForm = ({ records, keyName, cid, onKeyName, onCid, busy, onPublish }: PublishFormProps) => {
  const selected = records.some((r) => r.ipnsName === keyName) ? keyName : (records[0]?.ipnsName ?? "")
  return (
    <form
      className="lh-row"
      aria-label="Publish"
      onSubmit={(event) => {
        event.preventDefault()
        onPublish(selected)
      }}
    >
      <SelectField
        label="Key"
        value={selected}
        options={plainOptions(records.map((record) => record.ipnsName))}
        onChange={onKeyName}
      />
      <TextField label="CID" value={cid} onChange={(value) => onCid(value.trim())} />
      <button type="submit" disabled={busy || cid === ""}>
        Publish
      </button>
    </form>
  )
}

export const IpnsManager = ({ apiKey }: IpnsManagerProps) => {
  const { call, records, perform } = useIpnsKeys(apiKey)
  const [keyName, setKeyName] = useState("")
  const [cid, setCid] = useState("")
  const busy = call.state === "running"
  return (
    <section className="lh-card" aria-labelledby="ipns-title">
      <h2 id="ipns-title">IPNS names</h2>
      <button type="button" disabled={busy} onClick={() => void perform({ kind: "generate" })}>
        Create a key
      </button>
      <CallStatus call={call} running="Talking to the API…" success={call.value?.done ?? ""} />
      {records !== undefined && (
        <KeysTable records={records} busy={busy} onRemove={(keyName) => void perform({ kind: "remove", keyName })} />
      )}
      {records !== undefined && records.length > 0 && (
        <PublishForm
          records={records}
          keyName={keyName}
          cid={cid}
          onKeyName={setKeyName}
          onCid={setCid}
          busy={busy}
          onPublish={(selected) => void perform({ kind: "publish", keyName: selected, cid })}
        />
      )}
    </section>
  )
}
