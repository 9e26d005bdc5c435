/**
 * The options of a download from several sources, and its report.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * How the sources share a download:
 * - `fallback`: one at a time, in the order given; the next takes over from the last verified
 *   byte when one fails, stalls or lies;
 * - `race`: all are asked at once, the first to answer a verified block serves the content and
 *   the others are interrupted; when it fails, the rest race again from the last verified byte.
 *
 * @category schemas
 */
export const Strategy = Schema.Literals(["fallback", "race"])
/** @category models */
export type Strategy = typeof Strategy.Type

export const sourceFields = {
  /**
   * Trustless gateways to download from (base URLs), trusted with nothing: every block is checked
   * against the CID and a source that answers otherwise is dropped. With sources the download is
   * always verified (`verification` and `gateway` are not read). @default the configured gateway
   */
  sources: Schema.optional(Schema.Array(Schema.String)),
  /** @default "fallback" (or the configuration's) */
  strategy: Schema.optional(Strategy),
  /**
   * How long a source may keep the download waiting for its next bytes before it is dropped as
   * stalled: a `Duration`, or milliseconds. @default 30 seconds (or the configuration's)
   */
  stallTimeout: Schema.optional(Schema.Union([Schema.Finite, Schema.Duration]))
}

/** What one source did for a download. */
export interface SourceReport {
  /** The gateway's base URL. */
  readonly gateway: string
  /** Verified bytes of the content it served. */
  readonly bytes: number
  /** Why it was dropped (`HTTP 429`, `stalled 30 s`, `lied: block … had other bytes`); absent when it was not. */
  readonly dropped?: string
}
