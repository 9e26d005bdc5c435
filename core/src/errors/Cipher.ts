/**
 * Errors of the web cipher's Workers (`crypto/SegmentWorkers.ts`): what a stream that enciphers its
 * segments in Workers fails with when one of them stops doing so.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * A Worker enciphering a stream's segments threw, reported an error, could not be replaced, or
 * did not answer in time (a Worker that closes or is killed says nothing, so silence is bounded).
 * The stream ends here; its Workers are terminated. Nothing is wrong with the key or the data: the
 * same stream run again may succeed.
 */
export class CipherWorkerFailed extends Schema.TaggedError<CipherWorkerFailed>()("CipherWorkerFailed", {
  reason: Schema.String
}) {
  override get message() {
    return `The cipher worker failed: ${this.reason}`
  }
}
