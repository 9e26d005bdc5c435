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
 *   the others are interrupted; when it fails, the rest race again from the last verified byte;
 * - `split`: the content is cut into ranges of `rangeSize` bytes fetched from all sources in
 *   parallel (at most `requestsPerSource` requests each), handed out in order with at most
 *   `window` bytes held; a source that fails, stalls or lies on a range is dropped and the others
 *   fetch the rest of that range.
 *
 * @category schemas
 */
export const Strategy = Schema.Literals(["fallback", "race", "split"])
/** @category models */
export type Strategy = typeof Strategy.Type

const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0))

/**
 * Public trustless gateways run by the IPFS Foundation, each answering `?format=car` and
 * `?format=raw` (docs/PROTOCOL.md, "Public trustless gateways"; their documentation does not say
 * whether each honours `entity-bytes`; an answer with other blocks than the range's fails
 * verification and drops that source like any other): what the source named `"public"` stands for. Best-effort services with no promise
 * of uptime; safe to add because every block they send is checked against the CID.
 *
 * @category constants
 */
export const publicGateways: ReadonlyArray<string> = [
  "https://trustless-gateway.link",
  "https://ipfs.io",
  "https://dweb.link"
]

/**
 * Names a `sources` list may hold besides base URLs: `"gateway"` is the download's own gateway
 * (the call's `gateway`, else the configured one), `"public"` every gateway of {@link publicGateways}.
 *
 * @category constants
 */
export const sourceNames = { gateway: "gateway", public: "public" } as const

/** A base URL without its trailing slashes: two spellings of one gateway are one source. */
const baseOf = (url: string) => url.replace(/\/+$/, "")

/**
 * The base URLs a `sources` list stands for, in its order, each once: the names of
 * {@link sourceNames} expanded (`ownGateway` for `"gateway"`), a gateway listed twice kept where
 * it first appears.
 *
 * @category constructors
 */
export const expandSources = (entries: ReadonlyArray<string>, ownGateway: string): ReadonlyArray<string> => {
  const expanded = entries.flatMap((entry) =>
    entry === sourceNames.public ? publicGateways : entry === sourceNames.gateway ? [ownGateway] : [entry]
  )
  return expanded.filter((url, index) => expanded.findIndex((other) => baseOf(other) === baseOf(url)) === index)
}

export const sourceFields = {
  /**
   * Trustless gateways to download from (base URLs), trusted with nothing: every block is checked
   * against the CID and a source that answers otherwise is dropped. Besides URLs the list may name
   * `"gateway"` (the download's own gateway) and `"public"` (the public trustless gateways,
   * `publicGateways`): `["gateway", "public"]` adds them after the configured gateway. With
   * sources the download is always verified (`verification` is not read). @default the configured gateway
   */
  sources: Schema.optional(Schema.Array(Schema.String)),
  /** Also for the own gateway alone (`split` then asks it for several ranges at once). @default "fallback" (or the configuration's) */
  strategy: Schema.optional(Strategy),
  /**
   * How long a source may keep the download waiting for its next bytes before it is dropped as
   * stalled: a `Duration`, or milliseconds; the own gateway alone then fails with
   * `RequestTimedOut`. @default 30 seconds (or the configuration's)
   */
  stallTimeout: Schema.optional(Schema.Union([Schema.Finite, Schema.Duration])),
  /** `split`: bytes asked of a source in one request (refused with another strategy, as the two below). @default 4 MiB */
  rangeSize: Schema.optional(PositiveInt),
  /** `split`: requests a source may have in flight at once. @default 2 */
  requestsPerSource: Schema.optional(PositiveInt),
  /** `split`: verified bytes that may wait for the caller, at most. @default 16 MiB */
  window: Schema.optional(PositiveInt)
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
