/**
 * A download as its `verification` option asks: verified through the gateway's trustless answers,
 * or the gateway's bytes as they come (`off`, or `if-supported` with a gateway that cannot answer
 * verifiably). The report says which it came to, and why.
 *
 * A byte range is asked of the gateway when verifying (`entity-bytes`, only the blocks that hold
 * it travel); unverified, the whole file is read and cut.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import type { VerificationUnsupported } from "../errors/Verification.ts"
import {
  type Gateway,
  openCar,
  openRawBlocks,
  type TrustlessFormat,
  type Verification,
  type VerifiedFailure
} from "./Trustless.ts"
import type { ByteRange, Target } from "./Walk.ts"

/** How a download is checked. */
export interface VerifyOptions {
  /** @default "if-supported" */
  readonly verification?: Verification | undefined
  /** One CAR (`car`) or a request per block (`raw`). @default "car" */
  readonly trustless?: TrustlessFormat | undefined
}

/** What a download's verification came to. */
export type VerificationReport =
  | { readonly verified: true }
  | {
      readonly verified: false
      /** `off` when not asked; else why the gateway's answer could not be verified. */
      readonly reason: string
    }

/** Where the bytes come from. */
export interface Retrieval {
  /** The gateway's client (base URL, time-out and wording baked in). */
  readonly gateway: Gateway
}

/**
 * `range` of a stream: `length` bytes from `offset`. Reading stops at the range's end, unless
 * `read-all` (a stream whose end authenticates it must be read to it).
 */
export const slice =
  (range: ByteRange | undefined, reading: "stop-at-end" | "read-all" = "stop-at-end") =>
  <E, R>(bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Uint8Array, E, R> => {
    if (range === undefined) return bytes
    const end = range.length === undefined ? Number.POSITIVE_INFINITY : range.offset + range.length
    return Stream.suspend(() => {
      let position = 0
      const pieces = bytes.pipe(
        Stream.map((chunk) => {
          const start = position
          position += chunk.byteLength
          const piece = chunk.subarray(Math.max(0, range.offset - start), Math.max(0, end - start))
          return { piece, last: position >= end }
        })
      )
      return (reading === "read-all" ? pieces : pieces.pipe(Stream.takeUntil(({ last }) => last))).pipe(
        Stream.map(({ piece }) => piece),
        Stream.filter((piece) => piece.byteLength > 0)
      )
    })
  }

const openVerified = (
  { gateway }: Retrieval,
  target: Target,
  format: TrustlessFormat
): Effect.Effect<Stream.Stream<Uint8Array, VerifiedFailure>, VerifiedFailure> =>
  // One answer read straight through: its reads may be freed when the stream runs into a copying
  // writer. Not so with several sources (`Sources.ts`), whose split keeps ranges' bytes for later.
  format === "raw" ? openRawBlocks(gateway, target) : openCar(gateway, target, { freesReads: true })

/**
 * The bytes of `target` checked as `options` asks, `unverified` being how to read them otherwise;
 * `report` tells, once the stream has opened, whether they were verified.
 */
export const retrieve = Effect.fnUntraced(function* <E>(
  retrieval: Retrieval,
  target: Target,
  options: VerifyOptions | undefined,
  unverified: Stream.Stream<Uint8Array, E>
): Effect.fn.Return<{
  readonly stream: Stream.Stream<Uint8Array, E | VerifiedFailure>
  readonly report: Effect.Effect<VerificationReport>
}> {
  const verification = options?.verification ?? "if-supported"
  const format = options?.trustless ?? "car"
  const report = yield* Ref.make<VerificationReport>({ verified: false, reason: "off" })
  const plain = unverified.pipe(slice(target.range))
  if (verification === "off") return { stream: plain, report: Ref.get(report) }
  const opened = openVerified(retrieval, target, format).pipe(Effect.tap(() => Ref.set(report, { verified: true })))
  const stream =
    verification === "required"
      ? Stream.unwrap(opened)
      : Stream.unwrap(
          Effect.catchTag(opened, "VerificationUnsupported", (unsupported: VerificationUnsupported) =>
            Ref.set(report, { verified: false, reason: unsupported.message }).pipe(
              Effect.andThen(Effect.logWarning(`Downloading ${target.root} unverified: ${unsupported.message}`)),
              Effect.as<Stream.Stream<Uint8Array, E | VerifiedFailure>>(plain)
            )
          )
        )
  return { stream, report: Ref.get(report) }
})
