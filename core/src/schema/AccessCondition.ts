/**
 * Access conditions: who may recover a file's key, by on-chain state.
 *
 * The rules are the provider validator's, written as schemas, with its gaps closed:
 * the list must hold at least one condition (the provider's validator has allowed
 * an empty list since kavach 0.2.1, meant to clear a file's conditions; here a
 * file keeps at least one), ids are numbers ≥ 1, and every failure is reported as
 * `Condition validation error: "<field path>" <what is wrong>` instead of the
 * provider's `SyntaxError`.
 *
 * A condition set is a union tagged by `chainType` (EVM, SOLANA, COREUM, RADIX):
 * the chain type decides which condition shape applies, as on the key nodes.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { ConditionValidationError, InvalidCid, InvalidKeyShards, InvalidPublicKey } from "../Errors.ts"
import { type PublicKey, parsePublicKey } from "./Address.ts"
import { type Cid, parseCid } from "./Cid.ts"

// =============================================================================
// Building blocks
// =============================================================================

/** The provider's wording for a value outside a list: `must be [x]` for a single value, else `must be one of [x, y]`. */
const mustBeOneOf = (values: ReadonlyArray<string>) =>
  values.length === 1 ? `must be [${values[0]}]` : `must be one of [${values.join(", ")}]`

/** A string equal to one of `values`, ignoring case (the provider's `insensitive()`); the input is kept as given. */
const oneOfIgnoringCase = <const Values extends ReadonlyArray<string>>(values: Values) =>
  Schema.String.check(
    Schema.makeFilter((s: string) =>
      values.some((v) => v.toLowerCase() === s.toLowerCase()) ? undefined : mustBeOneOf(values)
    )
  )

const same = (a: string | undefined, b: string) => (a ?? "").toLowerCase() === b.toLowerCase()

export const Comparator = Schema.Literals(["==", ">=", "<=", "!=", ">", "<"])
export type Comparator = typeof Comparator.Type

export const ReturnValueTest = Schema.Struct({
  comparator: Comparator,
  value: Schema.Union([Schema.Finite, Schema.NonEmptyString, Schema.Array(Schema.Unknown)])
})
export type ReturnValueTest = typeof ReturnValueTest.Type

const ConditionId = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(1))

/** The 64 ABI types a Custom EVM condition may name (the provider's list: no `string`, `bytes`, `uint`…). */
export const abiTypes: ReadonlyArray<string> = (() => {
  const sizes = [8, 16, 24, 32, 40, 48, 64, 128, 192, 256]
  const base = [
    "address",
    "bool",
    ...[1, 2, 3, 4, 5, 6, 7, 8, 16, 32].map((n) => `bytes${n}`),
    ...sizes.map((n) => `uint${n}`),
    ...sizes.map((n) => `int${n}`)
  ]
  return [...base, ...base.map((t) => `${t}[]`)]
})()
const AbiType = Schema.String.check(
  Schema.makeFilter((s: string) => (abiTypes.includes(s) ? undefined : "must be a supported ABI type"))
)

// =============================================================================
// EVM
// =============================================================================

export const evmContractTypes = ["ERC20", "ERC721", "ERC1155", "Custom", ""] as const
const evmNativeMethods = ["getBalance", "getBlockNumber"]

export const EvmCondition = Schema.Struct({
  id: ConditionId,
  chain: Schema.NonEmptyString,
  method: Schema.NonEmptyString,
  standardContractType: oneOfIgnoringCase(evmContractTypes),
  contractAddress: Schema.optionalKey(Schema.String),
  parameters: Schema.optionalKey(Schema.Array(Schema.Unknown)),
  returnValueTest: ReturnValueTest,
  inputArrayType: Schema.optionalKey(Schema.Array(AbiType)),
  outputType: Schema.optionalKey(AbiType)
}).check(
  Schema.makeFilter((c) => {
    const issues: Array<Schema.FilterIssue> = []
    if (c.standardContractType === "") {
      if (!evmNativeMethods.includes(c.method))
        issues.push({ path: ["method"], issue: `must be one of [${evmNativeMethods.join(", ")}]` })
    } else {
      if (c.contractAddress === undefined || c.contractAddress === "")
        issues.push({ path: ["contractAddress"], issue: "is required" })
      if (c.parameters === undefined) issues.push({ path: ["parameters"], issue: "is required" })
    }
    if (same(c.standardContractType, "Custom")) {
      if (c.inputArrayType === undefined) issues.push({ path: ["inputArrayType"], issue: "is required" })
      if (c.outputType === undefined) issues.push({ path: ["outputType"], issue: "is required" })
    }
    return issues
  })
)
export type EvmCondition = typeof EvmCondition.Type

// =============================================================================
// Solana
// =============================================================================

export const solanaChains = ["DEVNET", "TESTNET", "MAINNET"] as const
const solanaNativeMethods = ["getBalance", "getLastBlockTime", "getBlockHeight"]

export const SolanaCondition = Schema.Struct({
  id: ConditionId,
  chain: oneOfIgnoringCase(solanaChains),
  method: Schema.NonEmptyString,
  standardContractType: oneOfIgnoringCase(["spl-token", ""]),
  contractAddress: Schema.optionalKey(Schema.String),
  parameters: Schema.optionalKey(Schema.Array(Schema.Unknown)),
  pdaInterface: Schema.Struct({
    offset: Schema.optionalKey(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))),
    selector: Schema.optionalKey(Schema.NonEmptyString)
  }),
  returnValueTest: ReturnValueTest
}).check(
  Schema.makeFilter((c) => {
    if (c.standardContractType === "") {
      return solanaNativeMethods.includes(c.method)
        ? undefined
        : { path: ["method"], issue: `must be one of [${solanaNativeMethods.join(", ")}]` }
    }
    const issues: Array<Schema.FilterIssue> = []
    if (c.method !== "getTokenAccountsByOwner")
      issues.push({ path: ["method"], issue: "must be [getTokenAccountsByOwner]" })
    if (c.contractAddress === undefined || c.contractAddress === "")
      issues.push({ path: ["contractAddress"], issue: "is required" })
    return issues
  })
)
export type SolanaCondition = typeof SolanaCondition.Type

// =============================================================================
// Coreum
// =============================================================================

export const coreumChains = ["Coreum_Devnet", "Coreum_Testnet", "Coreum_Mainnet"] as const

export const CoreumCondition = Schema.Struct({
  id: ConditionId,
  chain: oneOfIgnoringCase(coreumChains),
  method: Schema.NonEmptyString,
  standardContractType: Schema.optionalKey(Schema.String),
  contractAddress: Schema.optionalKey(Schema.String),
  parameters: Schema.optionalKey(Schema.Array(Schema.Unknown)),
  denom: Schema.optionalKey(Schema.String),
  classid: Schema.optionalKey(Schema.String),
  returnValueTest: ReturnValueTest
}).check(
  Schema.makeFilter((c) => {
    // An absent or empty type is the native branch, where the contract is optional.
    if (c.standardContractType === undefined || c.standardContractType === "") return undefined
    const issues: Array<Schema.FilterIssue> = []
    if (c.contractAddress === undefined || c.contractAddress === "")
      issues.push({ path: ["contractAddress"], issue: "is required" })
    if (c.parameters === undefined) issues.push({ path: ["parameters"], issue: "is required" })
    return issues
  })
)
export type CoreumCondition = typeof CoreumCondition.Type

// =============================================================================
// Radix
// =============================================================================

export const radixChains = ["Radix_Mainnet"] as const

/**
 * A Radix condition names a resource (`resource_rdx1…`) and a method, and nothing else: it is
 * always about the caller's own account, so `contractAddress` and `parameters` are not allowed.
 * The type is free text (the provider documents `""` or `custom`) and may be absent.
 */
export const RadixCondition = Schema.Struct({
  id: ConditionId,
  chain: oneOfIgnoringCase(radixChains),
  method: Schema.NonEmptyString,
  standardContractType: Schema.optionalKey(Schema.String),
  resourceAddress: Schema.NonEmptyString,
  returnValueTest: ReturnValueTest
})
export type RadixCondition = typeof RadixCondition.Type

// =============================================================================
// Condition sets and requests
// =============================================================================

export const ChainType = Schema.Literals(["EVM", "SOLANA", "COREUM", "RADIX"])
export type ChainType = typeof ChainType.Type

export const DecryptionType = Schema.Literals(["ADDRESS", "ACCESS_CONDITIONS"])
export type DecryptionType = typeof DecryptionType.Type

/** At least one condition, ids unique. */
const conditionList = <A extends { readonly id: number }, I>(item: Schema.Codec<A, I>) =>
  Schema.Array(item).check(
    Schema.makeFilter((list: ReadonlyArray<A>) => {
      if (list.length === 0) return "must contain at least 1 items"
      const seen = new Set<number>()
      for (const [i, c] of list.entries()) {
        if (seen.has(c.id)) return { path: [i], issue: "contains a duplicate value" }
        seen.add(c.id)
      }
      return undefined
    })
  )

const EvmConditions = conditionList(EvmCondition)
const SolanaConditions = conditionList(SolanaCondition)
const CoreumConditions = conditionList(CoreumCondition)
const RadixConditions = conditionList(RadixCondition)

/** The conditions, tagged by the chain type they are written for. */
export type ConditionSet =
  | { readonly chainType: "EVM"; readonly conditions: ReadonlyArray<EvmCondition> }
  | { readonly chainType: "SOLANA"; readonly conditions: ReadonlyArray<SolanaCondition> }
  | { readonly chainType: "COREUM"; readonly conditions: ReadonlyArray<CoreumCondition> }
  | { readonly chainType: "RADIX"; readonly conditions: ReadonlyArray<RadixCondition> }

export type Condition = EvmCondition | SolanaCondition | CoreumCondition | RadixCondition

/** What a caller hands in: plain data, possibly from a form or JSON. */
export interface ConditionInput {
  readonly conditions: ReadonlyArray<unknown>
  /** Required with more than one condition; must contain ` and ` or ` or `, e.g. `([1] and [2]) or [3]`. */
  readonly aggregator?: string | undefined
  /** `EVM` (default), `SOLANA`, `COREUM` or `RADIX`, any case. */
  readonly chainType?: string | undefined
  /** `ADDRESS` (default) or `ACCESS_CONDITIONS`, any case. */
  readonly decryptionType?: string | undefined
}

export type ValidConditions = ConditionSet & {
  readonly aggregator?: string
  readonly decryptionType: DecryptionType
}

const aggregatorPattern = /( and | or )/i

const pathText = (path: ReadonlyArray<PropertyKey>, prefix: string): string =>
  path.reduce<string>(
    (acc, key) => (typeof key === "number" ? `${acc}[${key}]` : acc === "" ? String(key) : `${acc}.${String(key)}`),
    prefix
  )

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** `"conditions[0].method" must be one of [getBalance, getBlockNumber]`: the first problem, named by its path. */
const describeIssue = (issue: SchemaIssue.Issue, prefix: string): string => {
  const first = formatter(issue).issues[0]
  if (first === undefined) return `"${prefix}" is invalid`
  const path = pathText(first.path?.map((p) => (typeof p === "object" ? p.key : p)) ?? [], prefix)
  const message =
    first.message === "Missing key"
      ? "is required"
      : first.message === "Unexpected key" || first.message === "Expected no excess property"
        ? "is not allowed"
        : first.message
  return `"${path}" ${message}`
}

const decodeList = <A, I>(schema: Schema.Codec<A, I>, conditions: ReadonlyArray<unknown>) =>
  Schema.decodeUnknownEffect(schema)(conditions, {
    onExcessProperty: "error"
  }).pipe(Effect.mapError((e) => new ConditionValidationError({ detail: describeIssue(e.issue, "conditions") })))

const invalid = (detail: string) => Effect.fail(new ConditionValidationError({ detail }))

/** Reads a case-insensitive enumeration with a default for empty values. */
const enumeration = <const A extends string>(
  field: string,
  value: unknown,
  allowed: ReadonlyArray<A>,
  fallback: A
): Effect.Effect<A, ConditionValidationError> => {
  // `null` is a default too, as on the provider; anything but a string is rejected, not thrown on.
  if (value === undefined || value === null || value === "") return Effect.succeed(fallback)
  const found = typeof value === "string" ? allowed.find((a) => a === value.toUpperCase()) : undefined
  return found === undefined ? invalid(`"${field}" must be one of [${allowed.join(", ")}]`) : Effect.succeed(found)
}

/**
 * Validates a set of conditions by every rule of the key nodes: chain type and decryption
 * type (any case, with defaults), each condition's shape for its chain, unique ids,
 * and the aggregator when there is more than one condition.
 */
export const validateConditions = Effect.fnUntraced(function* (
  input: ConditionInput
): Effect.fn.Return<ValidConditions, ConditionValidationError> {
  const chainType = yield* enumeration("chainType", input.chainType, ChainType.literals, "EVM")
  const decryptionType = yield* enumeration("decryptionType", input.decryptionType, DecryptionType.literals, "ADDRESS")
  if (!Array.isArray(input.conditions)) return yield* invalid(`"conditions" must be an array`)
  if (input.conditions.length > 1) {
    if (input.aggregator === undefined) return yield* invalid(`"aggregator" is required`)
    if (typeof input.aggregator !== "string") return yield* invalid(`"aggregator" must be a string`)
    if (!aggregatorPattern.test(input.aggregator))
      return yield* invalid(
        `"aggregator" with value "${input.aggregator}" fails to match the required pattern: /( and | or )/i`
      )
  }
  const extra = { decryptionType, ...(input.aggregator === undefined ? {} : { aggregator: input.aggregator }) }
  switch (chainType) {
    case "EVM":
      return { chainType, conditions: yield* decodeList(EvmConditions, input.conditions), ...extra }
    case "SOLANA":
      return { chainType, conditions: yield* decodeList(SolanaConditions, input.conditions), ...extra }
    case "COREUM":
      return { chainType, conditions: yield* decodeList(CoreumConditions, input.conditions), ...extra }
    case "RADIX":
      return { chainType, conditions: yield* decodeList(RadixConditions, input.conditions), ...extra }
  }
})

/** A request to a key node to create (with 5 shards) or update (with none) a file's conditions. */
export interface ConditionRequestInput extends ConditionInput {
  readonly address: string
  readonly cid: string
  readonly keyShards?: ReadonlyArray<unknown> | undefined
}

export type ValidConditionRequest = ValidConditions & {
  readonly address: PublicKey
  readonly cid: Cid
  readonly keyShards: ReadonlyArray<unknown>
}

/** A value as text for an error field; `String(…)` throws on objects such as `{ "toString": "x" }`. */
const shown = (value: unknown): string => JSON.stringify(value) ?? String(value)

/**
 * Validates a whole condition request in the provider's order: the shard count
 * (exactly 5 when creating, none when updating), then the CID, then the address,
 * then the conditions.
 */
export const validateConditionRequest = Effect.fnUntraced(function* (
  input: ConditionRequestInput,
  options: { readonly creating: boolean }
): Effect.fn.Return<
  ValidConditionRequest,
  ConditionValidationError | InvalidKeyShards | InvalidCid | InvalidPublicKey
> {
  const keyShards = input.keyShards ?? []
  const expected = options.creating ? 5 : 0
  if (!Array.isArray(keyShards) || keyShards.length !== expected)
    return yield* new InvalidKeyShards({ count: Array.isArray(keyShards) ? keyShards.length : -1 })
  if (keyShards.some((s) => typeof s !== "object" || s === null))
    return yield* invalid(
      `"keyShards[${keyShards.findIndex((s) => typeof s !== "object" || s === null)}]" must be of type object`
    )
  // Untyped callers (JSON) may send anything: a non-string is a typed error, not a defect.
  const rawCid: unknown = input.cid
  const rawAddress: unknown = input.address
  if (typeof rawCid !== "string") return yield* new InvalidCid({ cid: shown(rawCid) })
  const cid = yield* parseCid(rawCid)
  if (typeof rawAddress !== "string") return yield* new InvalidPublicKey({ publicKey: shown(rawAddress) })
  const address = yield* parsePublicKey(rawAddress)
  const conditions = yield* validateConditions(input)
  return { ...conditions, address, cid, keyShards }
})
