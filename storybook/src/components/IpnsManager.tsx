/**
 * The account's IPNS names: create a key, point it at a CID (and again when the content changes:
 * the name stays), see where each name points, remove a key.
 */
import { Effect } from "effect"
import { useCallback, useEffect, useState } from "react"
import { Ipns } from "lighthouse-effect"
import { useEffectCall } from "../runtime/useEffectCall.ts"
import { CallStatus } from "../ui/CallStatus.tsx"

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

export const IpnsManager = ({ apiKey }: IpnsManagerProps) => {
  const call = useEffectCall(act)
  // The last list read, kept on screen while the next action runs.
  const [records, setRecords] = useState<ReadonlyArray<Ipns.IpnsRecord> | undefined>(undefined)
  const [keyName, setKeyName] = useState("")
  const [cid, setCid] = useState("")
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
  // The key to publish under: the one picked, else the first.
  const selected = records?.some((r) => r.ipnsName === keyName) ? keyName : (records?.[0]?.ipnsName ?? "")
  const busy = call.state === "running"

  return (
    <section className="lh-card" aria-labelledby="ipns-title">
      <h2 id="ipns-title">IPNS names</h2>
      <button type="button" disabled={busy} onClick={() => void perform({ kind: "generate" })}>
        Create a key
      </button>
      <CallStatus call={call} running="Talking to the API…" success={call.value?.done ?? ""} />
      {records === undefined ? null : records.length === 0 ? (
        <p>No keys yet.</p>
      ) : (
        <table aria-label="Keys">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">IPNS name</th>
              <th scope="col">Points to</th>
              <th scope="col">
                <span className="lh-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {records.map((record) => (
              <tr key={record.ipnsName}>
                <td>{record.ipnsName}</td>
                <td>
                  <code>{record.ipnsId}</code>
                </td>
                <td>{record.cid === null ? "nothing yet" : <code>{record.cid}</code>}</td>
                <td>
                  <button
                    type="button"
                    disabled={busy}
                    onClick={() => void perform({ kind: "remove", keyName: record.ipnsName })}
                  >
                    Remove {record.ipnsName}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {records !== undefined && records.length > 0 && (
        <form
          className="lh-row"
          aria-label="Publish"
          onSubmit={(event) => {
            event.preventDefault()
            void perform({ kind: "publish", keyName: selected, cid })
          }}
        >
          <label className="lh-field">
            Key
            <select value={selected} onChange={(event) => setKeyName(event.currentTarget.value)}>
              {records.map((record) => (
                <option key={record.ipnsName}>{record.ipnsName}</option>
              ))}
            </select>
          </label>
          <label className="lh-field">
            CID
            <input value={cid} onChange={(event) => setCid(event.currentTarget.value.trim())} />
          </label>
          <button type="submit" disabled={busy || cid === ""}>
            Publish
          </button>
        </form>
      )}
    </section>
  )
}
