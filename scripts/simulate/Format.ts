/**
 * Short, readable renderings for the report's one-line results: sizes, addresses, secrets, and
 * the nodes' answers to a fan-out.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
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

/**
 * A secret as a fingerprint (`secret#1a2b3c4d`: the start of its SHA-256), so two equal secrets
 * can be told apart from two different ones without any part of either being shown.
 */
export const secret = (value: string | Redacted.Redacted<string>): string => {
  const text = typeof value === "string" ? value : Redacted.value(value)
  return `secret#${createHash("sha256").update(text).digest("hex").slice(0, 8)}`
}

/** `5/5 nodes succeeded`. */
export const nodes = (result: KeyNodes.FanOutResult): string =>
  `${result.reports.filter((r) => r.outcome === "succeeded").length}/${result.reports.length} nodes succeeded`

export const MiBytes = MiB
