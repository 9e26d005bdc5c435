/**
 * `returnValueTest`: compares what a chain returned with the value a condition expects.
 *
 * - Integers (EVM `uint`/`int`, balances, block numbers) are compared as `bigint`, so 18-decimal
 *   amounts never lose precision; a non-integer expected value falls back to `number`.
 * - Strings that are not numbers (addresses, bytes) only support `==` and `!=`, compared
 *   case-insensitively (EVM addresses come back checksummed).
 * - Booleans accept `true`/`false` as booleans or strings.
 * - Arrays: against an array, `==` means same length and every pair equal, `!=` its negation, and
 *   an ordering must hold pair by pair; against a single value, every element must pass.
 *
 * Anything that cannot be compared is `false`: a condition never passes by accident.
 *
 * @since 0.1.0
 */
export type ComparatorSymbol = "==" | ">=" | "<=" | "!=" | ">" | "<"

export const comparators: ReadonlyArray<ComparatorSymbol> = ["==", ">=", "<=", "!=", ">", "<"]

const integerPattern = /^-?\d+$/
const decimalPattern = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/

const order = (sign: number, comparator: ComparatorSymbol): boolean => {
  switch (comparator) {
    case "==":
      return sign === 0
    case "!=":
      return sign !== 0
    case ">":
      return sign > 0
    case ">=":
      return sign >= 0
    case "<":
      return sign < 0
    case "<=":
      return sign <= 0
  }
}

const asInteger = (value: unknown): bigint | undefined => {
  if (typeof value === "bigint") return value
  if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value)
  if (typeof value === "string" && integerPattern.test(value.trim())) return BigInt(value.trim())
  return undefined
}

const asDecimal = (value: unknown): number | undefined => {
  if (typeof value === "bigint") return Number(value)
  if (typeof value === "number" && Number.isFinite(value)) return value
  if (typeof value === "string" && decimalPattern.test(value.trim())) return Number(value.trim())
  return undefined
}

const asBoolean = (value: unknown): boolean | undefined => {
  if (typeof value === "boolean") return value
  if (value === "true") return true
  if (value === "false") return false
  return undefined
}

const compareScalar = (actual: unknown, comparator: ComparatorSymbol, expected: unknown): boolean => {
  if (typeof actual === "boolean" || typeof expected === "boolean") {
    const a = asBoolean(actual)
    const b = asBoolean(expected)
    if (a === undefined || b === undefined || (comparator !== "==" && comparator !== "!=")) return false
    return comparator === "==" ? a === b : a !== b
  }
  const a = asInteger(actual)
  const b = asInteger(expected)
  if (a !== undefined && b !== undefined) return order(a === b ? 0 : a > b ? 1 : -1, comparator)
  const x = asDecimal(actual)
  const y = asDecimal(expected)
  if (x !== undefined && y !== undefined) return order(x === y ? 0 : x > y ? 1 : -1, comparator)
  if (typeof actual === "string" && typeof expected === "string") {
    if (comparator !== "==" && comparator !== "!=") return false
    const same = actual.toLowerCase() === expected.toLowerCase()
    return comparator === "==" ? same : !same
  }
  return false
}

/** Whether `actual <comparator> expected` holds, by the rules above. */
export const compare = (actual: unknown, comparator: ComparatorSymbol, expected: unknown): boolean => {
  if (!comparators.includes(comparator)) return false
  if (Array.isArray(actual)) {
    if (Array.isArray(expected)) {
      // Equality is about the whole list; an ordering must hold pair by pair.
      if (comparator === "!=") return !compare(actual, "==", expected)
      return actual.length === expected.length && actual.every((item, i) => compare(item, comparator, expected[i]))
    }
    return actual.length > 0 && actual.every((item) => compare(item, comparator, expected))
  }
  if (Array.isArray(expected)) return false
  return compareScalar(actual, comparator, expected)
}
