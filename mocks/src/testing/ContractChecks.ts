/**
 * What a contract case found, one row per answer: the endpoint, what the contract and the
 * network's rules say it answers, what it answered, and whether the two are the same. The rows are
 * compared as order-insensitive JSON, so the Node test and the browser story judge alike.
 *
 * @since 0.1.0
 */

/** One answer of one endpoint, judged. */
export interface ContractCheck {
  /** `group.endpoint` in the contract. */
  readonly endpoint: string
  readonly expected: string
  readonly actual: string
  readonly asDeclared: boolean
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")

/** JSON with sorted keys, bytes as hex and bigints as digits: equal values show equal. */
export const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) => {
    if (inner instanceof Uint8Array) return `0x${hex(inner)}`
    if (typeof inner === "bigint") return inner.toString()
    if (inner === null || typeof inner !== "object" || Array.isArray(inner)) return inner
    const record = inner as Record<string, unknown>
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((key) => [key, record[key]])
    )
  }) ?? "undefined"

/** The rows of one case, in the order its calls answered. */
export class ContractChecks {
  readonly #rows: Array<ContractCheck> = []

  get rows(): ReadonlyArray<ContractCheck> {
    return this.#rows
  }

  /** The endpoint answered `actual`, which should equal `expected`. */
  equal(endpoint: string, actual: unknown, expected: unknown): void {
    const shownActual = canonical(actual)
    const shownExpected = canonical(expected)
    this.#rows.push({
      endpoint,
      expected: shownExpected,
      actual: shownActual,
      asDeclared: shownActual === shownExpected
    })
  }

  /** The endpoint answered `actual`, which should be `what` (a description the predicate tests). */
  that<A>(endpoint: string, what: string, actual: A, holds: (actual: A) => boolean): void {
    const asDeclared = holds(actual)
    this.#rows.push({ endpoint, expected: what, actual: asDeclared ? what : canonical(actual), asDeclared })
  }
}
