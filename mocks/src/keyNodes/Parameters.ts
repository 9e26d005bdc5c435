/**
 * Placeholders in a condition's `parameters` and expected value.
 *
 * - `:userAddress` is the caller: the address whose signature or JWT the node just checked.
 * - Any other `:name` is read from the request's `dynamicData`, keyed `"<conditionId>.<name>"`
 *   as kavach's README documents (`{[conditionID.parameterName]: value}`), or plain `"<name>"`.
 *   A placeholder with no value makes the condition false rather than calling a chain with a
 *   literal `:name`.
 *
 * @since 0.1.0
 */

export interface EvaluationContext {
  /** The authenticated caller, normalized. */
  readonly caller: string
  /** The request's `dynamicData` (an object; anything else counts as empty). */
  readonly dynamicData: Readonly<Record<string, unknown>>
}

/** A placeholder that had no value. */
export class UnresolvedPlaceholder extends Error {
  constructor(readonly placeholder: string) {
    super(`no value for ${placeholder}`)
  }
}

/** Replaces placeholders in a parameter (recursively in arrays); throws `UnresolvedPlaceholder`. */
export const substitute = (value: unknown, conditionId: number, context: EvaluationContext): unknown => {
  if (Array.isArray(value)) return value.map((item) => substitute(item, conditionId, context))
  if (typeof value !== "string" || !/^:[A-Za-z_$][\w$.]*$/.test(value)) return value
  if (value === ":userAddress") return context.caller
  const name = value.slice(1)
  for (const key of [`${conditionId}.${name}`, name]) {
    if (Object.hasOwn(context.dynamicData, key)) return context.dynamicData[key]
  }
  throw new UnresolvedPlaceholder(value)
}

/** The account a balance-style condition is about: its first parameter, else the caller. */
export const subjectOf = (parameters: ReadonlyArray<unknown>, context: EvaluationContext): string => {
  const first = parameters[0]
  return typeof first === "string" && first !== "" ? first : context.caller
}
