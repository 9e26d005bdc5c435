/**
 * An in-memory Radix ledger for Radix conditions: tests set what an account holds, the nodes read it.
 *
 * A Radix condition takes no parameters: it is about the caller, the account that signed in to the
 * key nodes, and names a resource by `resourceAddress` (`resource_rdx1…`). Its methods, compared
 * case-insensitively, are the ones the provider documents:
 * - `getFtsByAddress`: the caller's balance of a fungible resource. Radix amounts are decimals with
 *   up to 18 places, so the balance and the expected value are compared exactly as decimals
 *   (`"0.5"` XRD, not 5·10¹⁷ base units);
 * - `getNftsByAddress` (the provider's dapp also says `getNftByAddress`): how many non-fungible
 *   units of the resource the caller holds.
 * Any other method, or an expected value that is not a decimal, makes the condition false.
 *
 * @since 0.1.0
 */
import type { AccessCondition } from "lighthouse-effect"
import { type ComparatorSymbol, compare } from "./Comparator.ts"
import { accountKey } from "./Ledger.ts"
import { type EvaluationContext, substitute } from "./Parameters.ts"

/** Decimal places of a Radix amount (the ledger's `Decimal`). */
const radixDecimals = 18
const scale = 10n ** BigInt(radixDecimals)
const decimalPattern = /^(-?)(\d+)(?:\.(\d+))?$/

/** A decimal amount in units of 10⁻¹⁸; `undefined` when it is not a decimal with at most 18 places. */
export const parseRadixDecimal = (value: unknown): bigint | undefined => {
  const text = typeof value === "bigint" ? value.toString() : typeof value === "number" ? String(value) : value
  if (typeof text !== "string") return undefined
  const match = decimalPattern.exec(text.trim())
  if (match === null) return undefined
  const [, sign = "", whole = "0", fraction = ""] = match
  if (fraction.length > radixDecimals) return undefined
  const units = BigInt(whole) * scale + BigInt(fraction.padEnd(radixDecimals, "0"))
  return sign === "-" ? -units : units
}

/** A balance for the ledger: a decimal (`"12.5"`, `3`, `3n` whole units); never negative. */
export type RadixAmount = string | number | bigint

export interface RadixLedger {
  /** The account's balance of the fungible resource `resource`, as a decimal amount. */
  readonly setFungibleBalance: (account: string, resource: string, amount: RadixAmount) => void
  /** How many non-fungible units of `resource` the account holds. */
  readonly setNftCount: (account: string, resource: string, count: number | bigint) => void
  /** The balance in units of 10⁻¹⁸. */
  readonly fungibleBalanceOf: (account: string, resource: string) => bigint
  readonly nftCountOf: (account: string, resource: string) => bigint
  readonly reset: () => void
}

const nonNegative = (value: bigint | undefined, what: "amount" | "count", given: unknown): bigint => {
  const kind = what === "amount" ? "decimal" : "integer"
  if (value === undefined || value < 0n) throw new RangeError(`${what} must be a non-negative ${kind}, got ${given}`)
  return value
}

export const makeRadixLedger = (): RadixLedger => {
  const fungibles = new Map<string, bigint>()
  const nfts = new Map<string, bigint>()
  const key = (account: string, resource: string) => `${accountKey(account)}/${resource}`
  return {
    setFungibleBalance: (account, resource, amount) =>
      void fungibles.set(key(account, resource), nonNegative(parseRadixDecimal(amount), "amount", amount)),
    setNftCount: (account, resource, count) => {
      const whole = typeof count === "bigint" ? count : Number.isSafeInteger(count) ? BigInt(count) : undefined
      nfts.set(key(account, resource), nonNegative(whole, "count", count))
    },
    fungibleBalanceOf: (account, resource) => fungibles.get(key(account, resource)) ?? 0n,
    nftCountOf: (account, resource) => nfts.get(key(account, resource)) ?? 0n,
    reset: () => {
      fungibles.clear()
      nfts.clear()
    }
  }
}

/** An expected value in the units `actual` is in; throws when it is not a decimal. */
const inUnitsOf = (expected: unknown, toUnits: (value: unknown) => unknown): unknown =>
  Array.isArray(expected) ? expected.map((item) => inUnitsOf(item, toUnits)) : toUnits(expected)

const asRadixUnits = (value: unknown): bigint => {
  const units = parseRadixDecimal(value)
  if (units === undefined) throw new TypeError(`${String(value)} is not a Radix decimal`)
  return units
}

/** What the ledger answers for the condition, and how to read its expected value. */
const radixActual = (
  condition: AccessCondition.RadixCondition,
  ledger: RadixLedger,
  account: string
): { readonly actual: bigint; readonly toUnits: (value: unknown) => unknown } | undefined => {
  switch (condition.method.toLowerCase()) {
    case "getftsbyaddress":
      return { actual: ledger.fungibleBalanceOf(account, condition.resourceAddress), toUnits: asRadixUnits }
    case "getnftsbyaddress":
    case "getnftbyaddress":
      return { actual: ledger.nftCountOf(account, condition.resourceAddress), toUnits: (value) => value }
    default:
      return undefined
  }
}

/** Whether a Radix condition holds for the caller. Never throws. */
export const evaluateRadixCondition = (
  condition: AccessCondition.RadixCondition,
  context: EvaluationContext,
  ledger: RadixLedger
): boolean => {
  try {
    const read = radixActual(condition, ledger, context.caller)
    if (read === undefined) return false
    const expected = inUnitsOf(substitute(condition.returnValueTest.value, condition.id, context), read.toUnits)
    return compare(read.actual, condition.returnValueTest.comparator as ComparatorSymbol, expected)
  } catch {
    return false
  }
}
