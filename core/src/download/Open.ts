/**
 * One lane of a download: a gateway, and how it is asked for the bytes of a target. Verified, it
 * is asked for its trustless answer (a CAR, or raw blocks) checked block by block; unverified
 * (`verification: "off"`, or `"if-supported"` with a gateway that cannot answer verifiably), for
 * the bytes as stored: `POST /api/v0/cat/{cid}[/path]`, or `GET /ipfs/{cid}[/path]` from the
 * Walrus gateway, which serves content as a browser asks for it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Stream from "effect/Stream"
import { NetworkError } from "../Errors.ts"
import { urlOf } from "../internal/Hosts.ts"
import { slice } from "../verify/Retrieval.ts"
import {
  type Gateway,
  openCar,
  openRawBlocks,
  type TrustlessFormat,
  type Verification,
  type VerifiedFailure
} from "../verify/Trustless.ts"
import type { Target } from "../verify/Walk.ts"

/** A lane's answer: its bytes, and why they are not verified (absent when they are). */
export interface Opened {
  readonly bytes: Stream.Stream<Uint8Array, VerifiedFailure>
  readonly unverified?: string | undefined
}

/** One source of a download. */
export interface Lane {
  /** The gateway's base URL. */
  readonly gateway: string
  /** Its client, which a resumed download also checks the bytes on disk with. */
  readonly client: Gateway
  /** The bytes of `target` (from `range.offset` on), once the gateway has answered. */
  readonly open: (target: Target) => Effect.Effect<Opened, VerifiedFailure>
}

/** How a lane reads. */
export interface LaneReading {
  readonly verification: Verification
  readonly trustless: TrustlessFormat
  /** Whether the gateway is Walrus' (its unverified answer is a browser's `GET`). */
  readonly walrus: boolean
  /**
   * Whether the verified bytes go straight on to the caller, so the response's reads may be freed
   * once a copying writer has them; not when `split` keeps ranges' bytes for later.
   */
  readonly freesReads: boolean
}

/** The stored bytes of `target` as the gateway gives them, unverified, cut to its range; opened when the stream runs. */
const cat = (client: Gateway, target: Target, walrus: boolean): Stream.Stream<Uint8Array, VerifiedFailure> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const inside = (target.path ?? []).map((segment) => `/${encodeURIComponent(segment)}`).join("")
      const path = walrus ? `/ipfs/${target.root}${inside}` : `/api/v0/cat/${target.root}${inside}`
      const response = yield* client.execute(walrus ? HttpClientRequest.get(path) : HttpClientRequest.post(path))
      const url = urlOf(response.request)
      const method = response.request.method
      return response.stream.pipe(Stream.mapError((cause) => new NetworkError({ method, url, cause })))
    })
  ).pipe(slice(target.range))

const verified = (client: Gateway, target: Target, reading: LaneReading) =>
  Effect.map(
    reading.trustless === "raw"
      ? openRawBlocks(client, target)
      : openCar(client, target, { freesReads: reading.freesReads }),
    (bytes): Opened => ({ bytes })
  )

/** The lane of the gateway at `gateway`, reading as `reading` says. */
export const laneOf = (gateway: string, client: Gateway, reading: LaneReading): Lane => ({
  gateway,
  client,
  open: (target) => {
    if (reading.verification === "off") {
      return Effect.succeed({ bytes: cat(client, target, reading.walrus), unverified: "off" })
    }
    if (reading.verification === "required") return verified(client, target, reading)
    return Effect.catchTag(verified(client, target, reading), "VerificationUnsupported", (unsupported) =>
      Effect.as(Effect.logWarning(`Downloading ${target.root} unverified: ${unsupported.message}`), {
        bytes: cat(client, target, reading.walrus),
        unverified: unsupported.message
      })
    )
  }
})
