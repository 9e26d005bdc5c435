/**
 * Short, readable renderings for the report's one-line results: sizes, addresses, secrets, and
 * the nodes' answers to a fan-out.
 *
 * @since 0.1.0
 */
import { Redacted } from "effect"
import type { KeyNodes } from "lighthouse-effect"

const KiB = 1024
const MiB = 1024 * KiB
const GiB = 1024 * MiB

/** `12 B`, `64.0 KiB`, `100.0 MiB`, `1.10 GiB`. */
export const bytes = (n: number): string => {
  if (n >= GiB) return `${(n / GiB).toFixed(2)} GiB`
  if (n >= MiB) return `${(n / MiB).toFixed(1)} MiB`
  if (n >= KiB) return `${(n / KiB).toFixed(1)} KiB`
  return `${n} B`
}

/** `0x70997970…79C8`. */
export const address = (value: string): string => `${value.slice(0, 10)}…${value.slice(-4)}`

/** The first characters of a secret, never the whole of it. */
export const secret = (value: string | Redacted.Redacted<string>): string => {
  const text = typeof value === "string" ? value : Redacted.value(value)
  return `${text.slice(0, 10)}…`
}

/** `5/5 nodes succeeded`. */
export const nodes = (result: KeyNodes.FanOutResult): string =>
  `${result.reports.filter((r) => r.outcome === "succeeded").length}/${result.reports.length} nodes succeeded`

export const MiBytes = MiB
