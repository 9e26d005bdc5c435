/**
 * One access condition as the editor's form holds it (every field a string), a sensible first one
 * per chain type, and how it becomes the condition the key nodes take.
 */
import type { AccessCondition } from "lighthouse-effect"

export interface FormCondition {
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
export const startingCondition: Record<AccessCondition.ChainType, FormCondition> = {
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

export const comparators = ["==", ">=", "<=", "!=", ">", "<"] as const

/** Numbers stay numbers: the nodes compare them as such. */
const returnValueTest = (form: FormCondition) => ({
  comparator: form.comparator,
  value: /^-?\d+(\.\d+)?$/.test(form.value) ? Number(form.value) : form.value
})

/** A Radix condition names a resource and is always about the caller: no contract, no parameters. */
const radixCondition = (form: FormCondition): unknown => ({
  id: 1,
  chain: form.chain,
  method: form.method,
  standardContractType: form.standardContractType,
  resourceAddress: form.contractAddress,
  returnValueTest: returnValueTest(form)
})

/** EVM, Solana and Coreum conditions: a contract (optional for native methods) and parameters. */
const contractCondition = (chainType: AccessCondition.ChainType, form: FormCondition): unknown => ({
  id: 1,
  chain: form.chain,
  method: form.method,
  standardContractType: form.standardContractType,
  ...(form.contractAddress === "" ? {} : { contractAddress: form.contractAddress }),
  parameters: form.parameters
    .split(",")
    .map((parameter) => parameter.trim())
    .filter((parameter) => parameter !== ""),
  ...(chainType === "SOLANA" ? { pdaInterface: {} } : {}),
  returnValueTest: returnValueTest(form)
})

/** The form's condition, shaped for its chain type. */
export const conditionOf = (chainType: AccessCondition.ChainType, form: FormCondition): unknown =>
  chainType === "RADIX" ? radixCondition(form) : contractCondition(chainType, form)
