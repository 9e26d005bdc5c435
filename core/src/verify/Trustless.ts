/**
 * Verified retrieval from a trustless gateway: the content as a CAR
 * (`GET /ipfs/{cid}[/path]?format=car&dag-scope=entity[&entity-bytes=from:to]`, `Accept:
 * application/vnd.ipld.car; version=1; order=dfs; dups=y`) checked block by block while it
 * streams, or block by block (`?format=raw`, `Accept: application/vnd.ipld.raw`).
 *
 * A gateway that answers without a CAR (or a raw block) cannot be verified: that is
 * `VerificationUnsupported`, and the caller decides whether to fall back to unverified bytes.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Stream from "effect/Stream"
import type { CID } from "multiformats/cid"
import { type HttpStatusError, NetworkError, type TransportFailure } from "../Errors.ts"
import { type ContentVerificationFailed, UnverifiableGateway, VerificationUnsupported } from "../errors/Verification.ts"
import { type Client, urlOf } from "../internal/Hosts.ts"
import { failure } from "./Blocks.ts"
import { MAX_BLOCK_BYTES, verifyCar, verifyCarFreeingReads } from "./Car.ts"
import { verifyBlocks } from "./RawBlocks.ts"
import type { ByteRange, Target } from "./Walk.ts"

/**
 * How a download is verified:
 * - `required`: only verified bytes, or a failure;
 * - `if-supported`: verified when the gateway can answer verifiably, else the bytes unverified
 *   (and the result says so);
 * - `off`: the gateway's bytes as they come.
 */
export type Verification = "required" | "if-supported" | "off"

/** How a verified download asks for its blocks: one CAR, or one request per block. */
export type TrustlessFormat = "car" | "raw"

export const CAR_ACCEPT = "application/vnd.ipld.car; version=1; order=dfs; dups=y"
export const RAW_ACCEPT = "application/vnd.ipld.raw"

/** A gateway's client: its base URL, transfer time-out and `HTTP error! status {n}` wording baked in. */
export type Gateway = Client<HttpStatusError>

/** Why a verified download failed. */
export type VerifiedFailure = ContentVerificationFailed | VerificationUnsupported | HttpStatusError | TransportFailure

/** The `/ipfs/…` path of `root` and its path segments, each segment escaped. */
const ipfsPath = (root: CID, path: ReadonlyArray<string>) =>
  `/ipfs/${root}${path.map((segment) => `/${encodeURIComponent(segment)}`).join("")}`

/** `entity-bytes` of a range: inclusive bounds, `*` for the end. */
export const entityBytes = (range: ByteRange): string =>
  `${range.offset}:${range.length === undefined ? "*" : range.offset + range.length - 1}`

/** The CAR request of `target`. */
export const carRequest = (target: Target): HttpClientRequest.HttpClientRequest =>
  HttpClientRequest.get(ipfsPath(target.root, target.path ?? []), {
    urlParams: {
      format: "car",
      "dag-scope": "entity",
      "entity-bytes": target.range === undefined ? undefined : entityBytes(target.range)
    }
  }).pipe(HttpClientRequest.setHeader("Accept", CAR_ACCEPT))

const answersWith = (response: HttpClientResponse.HttpClientResponse, mediaType: string) =>
  (response.headers["content-type"] ?? "").toLowerCase().split(";")[0]!.trim() === mediaType

/**
 * Statuses with which a gateway says it does not serve this format. A 400 to a request with a
 * byte range (`entity-bytes`) is about the range, not the format: a gateway that serves CARs
 * answers so to a range it finds wrong, and is no less trustless for it.
 */
const refusesFormat = (status: number, ranged: boolean) =>
  (status === 400 && !ranged) || status === 406 || status === 415 || status === 501

const isRanged = (request: HttpClientRequest.HttpClientRequest) =>
  request.urlParams.params.some(([name]) => name === "entity-bytes")

/** Sends a trustless request; a refusal of the format, or an answer in another one, is `VerificationUnsupported`. */
const trustless = (gateway: Gateway, request: HttpClientRequest.HttpClientRequest, mediaType: string) =>
  gateway.execute(request).pipe(
    Effect.catchTag("HttpStatusError", (e) =>
      Effect.fail(
        refusesFormat(e.status, isRanged(request))
          ? new VerificationUnsupported({ url: e.url, detail: `it answered ${e.status} ${e.body ?? ""}`.trim() })
          : e
      )
    ),
    Effect.flatMap((response) =>
      answersWith(response, mediaType)
        ? Effect.succeed(response)
        : Effect.fail(
            new VerificationUnsupported({
              url: urlOf(response.request),
              detail: `it answered ${response.headers["content-type"] ?? "no content type"}, not ${mediaType}`
            })
          )
    )
  )

/**
 * Asks for `target` as a CAR; once the gateway has answered with one, its verified bytes. A
 * gateway that answers otherwise fails here, before any byte.
 */
export const openCar = (
  gateway: Gateway,
  target: Target,
  options?: { readonly freesReads?: boolean | undefined }
): Effect.Effect<
  Stream.Stream<Uint8Array, VerifiedFailure>,
  VerificationUnsupported | HttpStatusError | TransportFailure
> => {
  const verify = options?.freesReads === true ? verifyCarFreeingReads : verifyCar
  return Effect.map(trustless(gateway, carRequest(target), "application/vnd.ipld.car"), (response) =>
    verify(
      response.stream.pipe(
        Stream.mapError(
          (cause) => new NetworkError({ method: response.request.method, url: urlOf(response.request), cause })
        )
      ),
      target
    )
  )
}

/**
 * What a gateway answered instead of a trustless format, as `UnverifiableGateway`: the failure
 * of a download that must be verified, whose message says how to accept unverified bytes.
 */
export const unverifiable = (unsupported: VerificationUnsupported): UnverifiableGateway => {
  const format = URL.parse(unsupported.url)?.searchParams.get("format") ?? "car"
  // The two forms `trustless` words its detail in: `it answered {status} {body}`, `it answered {type}, not {type}`.
  const answer = /^it answered (\d{3}\b|[^,]+)/.exec(unsupported.detail)?.[1] ?? unsupported.detail
  return new UnverifiableGateway({ url: unsupported.url, answer, format })
}

/**
 * A raw block's answer read as it streams, refused as soon as it passes the largest block size:
 * a body without `Content-Length` is never read past that.
 */
const readBlock = (
  response: HttpClientResponse.HttpClientResponse,
  tooLarge: (bytes: string) => ContentVerificationFailed
): Effect.Effect<Uint8Array, VerifiedFailure> =>
  Effect.suspend(() => {
    const parts: Array<Uint8Array> = []
    let size = 0
    return Stream.mapError(
      response.stream,
      (cause) => new NetworkError({ method: response.request.method, url: urlOf(response.request), cause })
    ).pipe(
      Stream.runForEachArray((chunks) => {
        for (const chunk of chunks) {
          size += chunk.byteLength
          if (size > MAX_BLOCK_BYTES) return Effect.fail(tooLarge(`more than ${MAX_BLOCK_BYTES}`))
          parts.push(chunk)
        }
        return Effect.void
      }),
      Effect.map(() => concatBytes(parts, size))
    )
  })

const concatBytes = (parts: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
  if (parts.length === 1) return parts[0]!
  const whole = new Uint8Array(size)
  let at = 0
  for (const part of parts) {
    whole.set(part, at)
    at += part.byteLength
  }
  return whole
}

/** One block by its CID (`?format=raw`), refused past the largest block size. */
export const fetchRawBlock = (gateway: Gateway, root: CID) => (cid: CID) => {
  const request = HttpClientRequest.get(`/ipfs/${cid}`, { urlParams: { format: "raw" } }).pipe(
    HttpClientRequest.setHeader("Accept", RAW_ACCEPT)
  )
  const tooLarge = (bytes: string) =>
    failure(root, "block-too-large", `block ${cid} is answered with ${bytes} bytes`, cid)
  return trustless(gateway, request, RAW_ACCEPT).pipe(
    Effect.flatMap((response): Effect.Effect<Uint8Array, VerifiedFailure> => {
      const length = Number(response.headers["content-length"] ?? Number.NaN)
      if (length > MAX_BLOCK_BYTES) return Effect.fail(tooLarge(`${length}`))
      return readBlock(response, tooLarge)
    })
  )
}

/**
 * Asks for the root block of `target` (`?format=raw`); once the gateway has answered with it, the
 * verified bytes, the other blocks asked for one at a time as the stream needs them.
 */
export const openRawBlocks = (
  gateway: Gateway,
  target: Target
): Effect.Effect<Stream.Stream<Uint8Array, VerifiedFailure>, VerifiedFailure> => {
  const fetchBlock = fetchRawBlock(gateway, target.root)
  return Effect.map(fetchBlock(target.root), (rootBlock) => {
    let first: Uint8Array | undefined = rootBlock
    const source = (cid: CID) => {
      const prefetched = first
      first = undefined
      return prefetched !== undefined && cid.equals(target.root) ? Effect.succeed(prefetched) : fetchBlock(cid)
    }
    return verifyBlocks(source, target)
  })
}
