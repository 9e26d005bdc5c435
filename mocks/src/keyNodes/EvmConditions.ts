/**
 * EVM conditions, evaluated for real against a chain through a viem `PublicClient`.
 *
 * - `standardContractType: ""`: `getBalance` (native balance of the first parameter, else the
 *   caller) and `getBlockNumber`.
 * - `ERC20`, `ERC721`, `ERC1155`: `method` is looked up by name and parameter count in the
 *   standard ABI (so `balanceOf(owner)`, `ownerOf(tokenId)`, ERC1155 `balanceOf(account, id)`,
 *   `totalSupply()`, `allowance(…)` … all work), then called with `eth_call`.
 * - `Custom`: the function is built from `method`, `inputArrayType` and `outputType`, and called
 *   with `parameters` converted to those types.
 *
 * A reverted call (e.g. `ownerOf` of a token that does not exist), an unknown chain, a method the
 * ABI lacks or a parameter that does not convert all make the condition false.
 *
 * @since 0.1.0
 */

import type { AccessCondition } from "lighthouse-effect"
import { type AbiFunction, erc20Abi, erc721Abi, erc1155Abi, type PublicClient } from "viem"
import { type ComparatorSymbol, compare } from "./Comparator.ts"
import { type EvaluationContext, subjectOf, substitute } from "./Parameters.ts"

/** Where EVM conditions are evaluated: one client for every chain name, or a lookup by name. */
export type EvmChainSource = PublicClient | ((chain: string) => PublicClient | undefined)

const standardAbis: Record<string, ReadonlyArray<unknown>> = {
  erc20: erc20Abi,
  erc721: erc721Abi,
  erc1155: erc1155Abi
}

const evmAddressPattern = /^0x[0-9a-fA-F]{40}$/

const isClient = (source: EvmChainSource): source is PublicClient => typeof source !== "function"

const clientFor = (source: EvmChainSource | undefined, chain: string): PublicClient | undefined =>
  source === undefined ? undefined : isClient(source) ? source : source(chain)

/** Converts one JSON parameter to what viem encodes for an ABI type; throws when it cannot. */
export const toAbiValue = (value: unknown, type: string): unknown => {
  if (type.endsWith("[]")) {
    const base = type.slice(0, -2)
    const list = Array.isArray(value)
      ? value
      : typeof value === "string"
        ? value.trim().startsWith("[")
          ? (JSON.parse(value) as ReadonlyArray<unknown>)
          : value.split(",").map((s) => s.trim())
        : undefined
    if (list === undefined) throw new TypeError(`${type} needs an array`)
    return list.map((item) => toAbiValue(item, base))
  }
  if (/^u?int\d*$/.test(type)) {
    if (typeof value === "bigint") return value
    if (
      (typeof value === "number" && Number.isSafeInteger(value)) ||
      (typeof value === "string" && /^-?\d+$/.test(value))
    )
      return BigInt(value)
    throw new TypeError(`${type} needs an integer`)
  }
  if (type === "address") {
    if (typeof value === "string" && evmAddressPattern.test(value)) return value.toLowerCase()
    throw new TypeError("address needs 0x and 40 hex digits")
  }
  if (type === "bool") {
    if (value === true || value === "true") return true
    if (value === false || value === "false") return false
    throw new TypeError("bool needs true or false")
  }
  if (/^bytes\d+$/.test(type)) {
    if (typeof value === "string" && /^0x[0-9a-fA-F]*$/.test(value)) return value
    throw new TypeError(`${type} needs 0x-hex`)
  }
  return value
}

const findFunction = (standard: string, method: string, arity: number): AbiFunction | undefined =>
  (standardAbis[standard] as ReadonlyArray<AbiFunction> | undefined)?.find(
    (item) => item.type === "function" && item.name === method && item.inputs.length === arity
  )

const customFunction = (condition: AccessCondition.EvmCondition): AbiFunction => ({
  type: "function",
  name: condition.method,
  stateMutability: "view",
  inputs: (condition.inputArrayType ?? []).map((type, i) => ({ name: `arg${i}`, type })),
  outputs: [{ name: "", type: condition.outputType ?? "uint256" }]
})

/** What the chain answers for this condition (before the comparison). */
const readActual = async (
  client: PublicClient,
  condition: AccessCondition.EvmCondition,
  parameters: ReadonlyArray<unknown>,
  context: EvaluationContext
): Promise<unknown> => {
  const type = condition.standardContractType.toLowerCase()
  if (type === "") {
    if (condition.method === "getBlockNumber") return client.getBlockNumber()
    const subject = subjectOf(parameters, context)
    if (!evmAddressPattern.test(subject)) throw new TypeError("getBalance needs an EVM address")
    return client.getBalance({ address: subject as `0x${string}` })
  }
  const fn = type === "custom" ? customFunction(condition) : findFunction(type, condition.method, parameters.length)
  if (fn === undefined) throw new TypeError(`${condition.standardContractType} has no ${condition.method}`)
  if (fn.inputs.length !== parameters.length) throw new TypeError("parameter count does not match inputArrayType")
  const address = condition.contractAddress ?? ""
  if (!evmAddressPattern.test(address)) throw new TypeError("contractAddress is not an EVM address")
  return client.readContract({
    address: address as `0x${string}`,
    abi: [fn],
    functionName: fn.name,
    args: fn.inputs.map((input, i) => toAbiValue(parameters[i], input.type))
  })
}

/** Whether an EVM condition holds for the caller. Never throws: failures are `false`. */
export const evaluateEvmCondition = async (
  condition: AccessCondition.EvmCondition,
  context: EvaluationContext,
  source: EvmChainSource | undefined
): Promise<boolean> => {
  const client = clientFor(source, condition.chain)
  if (client === undefined) return false
  try {
    const parameters = substitute(condition.parameters ?? [], condition.id, context) as ReadonlyArray<unknown>
    const expected = substitute(condition.returnValueTest.value, condition.id, context)
    const actual = await readActual(client, condition, parameters, context)
    return compare(actual, condition.returnValueTest.comparator as ComparatorSymbol, expected)
  } catch {
    return false
  }
}
