/**
 * Errors of downloads from several sources (trustless gateways) at once.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** A source a download gave up on, and why (`HTTP 429`, `stalled 30 s`, `lied: block … had other bytes`). */
export const DroppedSource = Schema.Struct({
  /** The gateway's base URL. */
  gateway: Schema.String,
  reason: Schema.String
})
export type DroppedSource = typeof DroppedSource.Type

/**
 * Every source of a download failed (or was dropped for lying) before the content was whole;
 * the verified bytes already handed out were the content's, the rest never came.
 */
export class AllSourcesFailed extends Schema.TaggedError<AllSourcesFailed>()("AllSourcesFailed", {
  /** The CID asked for. */
  cid: Schema.String,
  /** Each source, in the order given, with the reason it was dropped. */
  sources: Schema.Array(DroppedSource)
}) {
  get isRetryable() {
    return true
  }
  override get message() {
    const reasons = this.sources.map(({ gateway, reason }) => `${gateway} (${reason})`).join("; ")
    return `Every source of ${this.cid} failed: ${reasons}`
  }
}
