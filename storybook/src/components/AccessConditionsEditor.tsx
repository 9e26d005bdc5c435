/**
 * Edits the access conditions of an encrypted file: who may recover its key because of what they
 * hold on chain (EVM, Solana, Coreum or Radix). Conditions are checked as they are typed, in the form or
 * as JSON, by the same rules the key nodes apply, then set on all 5 key nodes by the owner.
 */
import { Effect } from "effect"
import { type AccessCondition, AccessControl, type Signer } from "lighthouse-effect"
import { type FormEvent, useState } from "react"
import { useEffectCall } from "../runtime/useEffectCall.ts"
import { CallStatus } from "../ui/CallStatus.tsx"
import { DetailsList } from "../ui/DetailsList.tsx"
import { Choice, type Option, SelectField, TextField } from "../ui/Field.tsx"
import { ConditionFields } from "./conditions/ConditionFields.tsx"
import { ConditionJson } from "./conditions/ConditionJson.tsx"
import { conditionOf, type FormCondition, startingCondition } from "./conditions/FormCondition.ts"
import { type EditMode, useConditionCheck } from "./conditions/useConditionCheck.ts"

export interface AccessConditionsEditorProps {
  /** The file's owner: only the owner may change its conditions. */
  readonly signer: Signer.Service
}

const apply = Effect.fnUntraced(function* (
  signer: Signer.Service,
  request: { cid: string; conditions: ReadonlyArray<unknown>; aggregator: string; chainType: AccessCondition.ChainType }
) {
  const accessControl = yield* AccessControl.AccessControl
  yield* accessControl.update({
    signer,
    cid: request.cid,
    conditions: request.conditions,
    chainType: request.chainType,
    ...(request.aggregator === "" ? {} : { aggregator: request.aggregator })
  })
  // What the nodes now hold.
  return yield* accessControl.get(request.cid)
})

const chainTypes: ReadonlyArray<Option<AccessCondition.ChainType>> = [
  { value: "EVM", text: "EVM" },
  { value: "SOLANA", text: "Solana" },
  { value: "COREUM", text: "Coreum" },
  { value: "RADIX", text: "Radix" }
]

const editModes: ReadonlyArray<Option<EditMode>> = [
  { value: "form", text: "Form" },
  { value: "json", text: "JSON" }
]

/** Says whether the conditions are valid; the inputs point here (`aria-describedby`). */
const checkId = "conditions-check"

const aggregatorLabel = (
  <span>
    Aggregator{" "}
    <small>
      (needed with more than one condition, e.g. <code>([1] and [2]) or [3]</code>)
    </small>
  </span>
)

/** What the key nodes hold once the change is applied. */
const AppliedConditions = ({
  record,
  chainType
}: {
  readonly record: AccessControl.AccessConditions
  readonly chainType: AccessCondition.ChainType
}) => (
  <DetailsList
    label="Conditions on the key nodes"
    rows={[
      { term: "Owner", detail: <code>{record.owner}</code> },
      { term: "Chain type", detail: record.chainType ?? chainType },
      { term: "Conditions", detail: record.conditions.length + record.conditionsSolana.length },
      { term: "Aggregator", detail: record.aggregator === "" ? "(none)" : record.aggregator }
    ]}
  />
)

export const AccessConditionsEditor = ({ signer }: AccessConditionsEditorProps) => {
  const [cid, setCid] = useState("")
  const [chainType, setChainType] = useState<AccessCondition.ChainType>("EVM")
  const [mode, setMode] = useState<EditMode>("form")
  const [form, setForm] = useState<FormCondition>(startingCondition.EVM)
  const [json, setJson] = useState("")
  const [aggregator, setAggregator] = useState("")
  const call = useEffectCall(apply)
  const { conditions, problem } = useConditionCheck({ mode, chainType, form, json, aggregator })
  const invalid = problem !== undefined

  const pickChainType = (next: AccessCondition.ChainType) => {
    setChainType(next)
    setForm(startingCondition[next])
  }
  const switchMode = (next: EditMode) => {
    // The form's condition is where JSON editing starts.
    if (next === "json" && json === "") setJson(JSON.stringify([conditionOf(chainType, form)], null, 2))
    setMode(next)
  }
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (conditions !== undefined) void call.run(signer, { cid, conditions, aggregator, chainType })
  }

  return (
    <form className="lh-card" onSubmit={submit} aria-labelledby="conditions-title">
      <h2 id="conditions-title">Access conditions</h2>
      <TextField label="File CID" value={cid} onChange={(value) => setCid(value.trim())} />
      <div className="lh-row">
        <SelectField label="Chain type" value={chainType} options={chainTypes} onChange={pickChainType} />
        <Choice legend="Edit as" name="mode" value={mode} options={editModes} onChange={switchMode} />
      </div>
      {mode === "form" ? (
        <ConditionFields
          chainType={chainType}
          condition={form}
          onChange={setForm}
          invalid={invalid}
          describedBy={checkId}
        />
      ) : (
        <ConditionJson json={json} onChange={setJson} invalid={invalid} describedBy={checkId} />
      )}
      <TextField label={aggregatorLabel} value={aggregator} onChange={setAggregator} />
      <p id={checkId} aria-live="polite" className={invalid ? "lh-error" : "lh-status"}>
        {problem ?? "The conditions are valid."}
      </p>
      <button type="submit" disabled={invalid || cid === "" || call.state === "running"}>
        Apply on the key nodes
      </button>
      <CallStatus call={call} running="Updating the 5 key nodes…" success="Applied on all 5 key nodes." />
      {call.state === "success" && <AppliedConditions record={call.value} chainType={chainType} />}
    </form>
  )
}
