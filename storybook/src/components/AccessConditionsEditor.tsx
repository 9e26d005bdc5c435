/**
 * Edits the access conditions of an encrypted file: who may recover its key because of what they
 * hold on chain (EVM, Solana, Coreum or Radix). Conditions are checked as they are typed, in the form or
 * as JSON, by the same rules the key nodes apply, then set on all 5 key nodes by the owner.
 */
import { Effect, Result } from "effect"
import { type FormEvent, useState } from "react"
import { AccessCondition, AccessControl, Auth, type Signer } from "lighthouse-effect"
import { useEffectCall } from "../runtime/useEffectCall.ts"
import { CallStatus } from "../ui/CallStatus.tsx"

export interface AccessConditionsEditorProps {
  /** The file's owner: only the owner may change its conditions. */
  readonly signer: Signer.Service
}

interface Fields {
  readonly chain: string
  readonly standardContractType: string
  /** The contract; on Radix, the resource (`resource_rdx1…`). */
  readonly contractAddress: string
  readonly method: string
  /** Comma-separated; `:userAddress` stands for the caller. */
  readonly parameters: string
  readonly comparator: string
  readonly value: string
}

/** A sensible first condition per chain type. */
const starting: Record<AccessCondition.ChainType, Fields> = {
  EVM: {
    chain: "Ethereum",
    standardContractType: "ERC20",
    contractAddress: "",
    method: "balanceOf",
    parameters: ":userAddress",
    comparator: ">=",
    value: "1000000"
  },
  SOLANA: {
    chain: "DEVNET",
    standardContractType: "",
    contractAddress: "",
    method: "getBalance",
    parameters: ":userAddress",
    comparator: ">=",
    value: "1000000000"
  },
  COREUM: {
    chain: "Coreum_Testnet",
    standardContractType: "",
    contractAddress: "",
    method: "getBalance",
    parameters: ":userAddress",
    comparator: ">=",
    value: "1000000"
  },
  RADIX: {
    chain: "Radix_Mainnet",
    standardContractType: "",
    // XRD, the network's own token.
    contractAddress: "resource_rdx1tknxxxxxxxxxradxrdxxxxxxxxx009923554798xxxxxxxxxradxrd",
    method: "getFtsByAddress",
    parameters: "",
    comparator: ">=",
    value: "1"
  }
}

const comparators = ["==", ">=", "<=", "!=", ">", "<"]

/** Numbers stay numbers: the nodes compare them as such. */
const returnValueTest = (f: Fields) => ({
  comparator: f.comparator,
  value: /^-?\d+(\.\d+)?$/.test(f.value) ? Number(f.value) : f.value
})

/** A Radix condition names a resource and is always about the caller: no contract, no parameters. */
const radixFromFields = (f: Fields): unknown => ({
  id: 1,
  chain: f.chain,
  method: f.method,
  standardContractType: f.standardContractType,
  resourceAddress: f.contractAddress,
  returnValueTest: returnValueTest(f)
})

/** EVM, Solana and Coreum conditions: a contract (optional for native methods) and parameters. */
const contractFromFields = (chainType: AccessCondition.ChainType, f: Fields): unknown => ({
  id: 1,
  chain: f.chain,
  method: f.method,
  standardContractType: f.standardContractType,
  ...(f.contractAddress === "" ? {} : { contractAddress: f.contractAddress }),
  parameters: f.parameters
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== ""),
  ...(chainType === "SOLANA" ? { pdaInterface: {} } : {}),
  returnValueTest: returnValueTest(f)
})

/** One condition from the form, shaped for its chain type. */
const fromFields = (chainType: AccessCondition.ChainType, f: Fields): unknown =>
  chainType === "RADIX" ? radixFromFields(f) : contractFromFields(chainType, f)

/** The conditions as typed, or why they cannot even be read. */
const parse = (
  mode: "fields" | "json",
  chainType: AccessCondition.ChainType,
  fields: Fields,
  json: string
): { readonly conditions?: ReadonlyArray<unknown>; readonly problem?: string } => {
  if (mode === "fields") return { conditions: [fromFields(chainType, fields)] }
  try {
    return { conditions: JSON.parse(json) as ReadonlyArray<unknown> }
  } catch (error) {
    return { problem: `Conditions are not valid JSON: ${(error as Error).message}` }
  }
}

const apply = Effect.fnUntraced(function* (
  signer: Signer.Service,
  request: { cid: string; conditions: ReadonlyArray<unknown>; aggregator: string; chainType: AccessCondition.ChainType }
) {
  const token = yield* Auth.Auth.use((auth) => auth.token(signer))
  const accessControl = yield* AccessControl.AccessControl
  yield* accessControl.update({
    address: signer.address,
    cid: request.cid,
    token,
    conditions: request.conditions,
    chainType: request.chainType,
    ...(request.aggregator === "" ? {} : { aggregator: request.aggregator })
  })
  // What the nodes now hold.
  return yield* accessControl.get(request.cid)
})

export const AccessConditionsEditor = ({ signer }: AccessConditionsEditorProps) => {
  const [cid, setCid] = useState("")
  const [chainType, setChainType] = useState<AccessCondition.ChainType>("EVM")
  const [mode, setMode] = useState<"fields" | "json">("fields")
  const [fields, setFields] = useState<Fields>(starting.EVM)
  const [json, setJson] = useState("")
  const [aggregator, setAggregator] = useState("")
  const call = useEffectCall(apply)

  const parsed = parse(mode, chainType, fields, json)
  // The same schema the key nodes validate with, run on every keystroke.
  const problem =
    parsed.conditions === undefined
      ? parsed.problem
      : Result.match(
          Effect.runSync(
            Effect.result(
              AccessCondition.validateConditions({
                conditions: parsed.conditions,
                chainType,
                ...(aggregator === "" ? {} : { aggregator })
              })
            )
          ),
          { onSuccess: () => undefined, onFailure: (error) => error.message }
        )

  const field = (name: keyof Fields, label: string) => (
    <label className="lh-field">
      {label}
      <input
        value={fields[name]}
        aria-invalid={problem !== undefined}
        aria-describedby="conditions-check"
        onChange={(event) => setFields({ ...fields, [name]: event.currentTarget.value })}
      />
    </label>
  )

  const switchMode = (next: "fields" | "json") => {
    // The form's condition is where JSON editing starts.
    if (next === "json" && json === "") setJson(JSON.stringify([fromFields(chainType, fields)], null, 2))
    setMode(next)
  }

  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (parsed.conditions !== undefined)
      void call.run(signer, { cid, conditions: parsed.conditions, aggregator, chainType })
  }

  return (
    <form className="lh-card" onSubmit={submit} aria-labelledby="conditions-title">
      <h2 id="conditions-title">Access conditions</h2>
      <label className="lh-field">
        File CID
        <input value={cid} onChange={(event) => setCid(event.currentTarget.value.trim())} />
      </label>
      <div className="lh-row">
        <label className="lh-field">
          Chain type
          <select
            value={chainType}
            onChange={(event) => {
              const next = event.currentTarget.value as AccessCondition.ChainType
              setChainType(next)
              setFields(starting[next])
            }}
          >
            <option value="EVM">EVM</option>
            <option value="SOLANA">Solana</option>
            <option value="COREUM">Coreum</option>
            <option value="RADIX">Radix</option>
          </select>
        </label>
        <fieldset>
          <legend>Edit as</legend>
          <label>
            <input type="radio" name="mode" checked={mode === "fields"} onChange={() => switchMode("fields")} /> Form
          </label>
          <label>
            <input type="radio" name="mode" checked={mode === "json"} onChange={() => switchMode("json")} /> JSON
          </label>
        </fieldset>
      </div>
      {mode === "fields" ? (
        <div className="lh-row">
          {field("chain", "Chain")}
          {field("standardContractType", "Contract type")}
          {field("contractAddress", chainType === "RADIX" ? "Resource address" : "Contract address")}
          {field("method", "Method")}
          {chainType !== "RADIX" && field("parameters", "Parameters")}
          <label className="lh-field">
            Comparator
            <select
              value={fields.comparator}
              onChange={(event) => setFields({ ...fields, comparator: event.currentTarget.value })}
            >
              {comparators.map((c) => (
                <option key={c}>{c}</option>
              ))}
            </select>
          </label>
          {field("value", "Value")}
        </div>
      ) : (
        <label className="lh-field">
          Conditions (JSON)
          <textarea
            rows={12}
            value={json}
            spellCheck={false}
            aria-invalid={problem !== undefined}
            aria-describedby="conditions-check"
            onChange={(event) => setJson(event.currentTarget.value)}
          />
        </label>
      )}
      <label className="lh-field">
        <span>
          Aggregator{" "}
          <small>
            (needed with more than one condition, e.g. <code>([1] and [2]) or [3]</code>)
          </small>
        </span>
        <input value={aggregator} onChange={(event) => setAggregator(event.currentTarget.value)} />
      </label>
      <p id="conditions-check" aria-live="polite" className={problem === undefined ? "lh-status" : "lh-error"}>
        {problem ?? "The conditions are valid."}
      </p>
      <button type="submit" disabled={problem !== undefined || cid === "" || call.state === "running"}>
        Apply on the key nodes
      </button>
      <CallStatus call={call} running="Updating the 5 key nodes…" success="Applied on all 5 key nodes." />
      {call.state === "success" && (
        <dl aria-label="Conditions on the key nodes">
          <dt>Owner</dt>
          <dd>
            <code>{call.value.owner}</code>
          </dd>
          <dt>Chain type</dt>
          <dd>{call.value.chainType ?? chainType}</dd>
          <dt>Conditions</dt>
          <dd>{call.value.conditions.length + call.value.conditionsSolana.length}</dd>
          <dt>Aggregator</dt>
          <dd>{call.value.aggregator === "" ? "(none)" : call.value.aggregator}</dd>
        </dl>
      )}
    </form>
  )
}
