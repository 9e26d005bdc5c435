/**
 * A CID's bytes from the gateway (`POST {gateway}/api/v0/cat/{cid}`, or `GET {walrusGateway}/ipfs/{cid}`
 * for content stored on Walrus), opened when the stream
 * runs, and decrypted when asked, with the master key given or recovered for a signer.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Stream from "effect/Stream"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type { Auth, SignInFailure } from "../Auth.ts"
import type { MasterKey } from "../crypto/FileFormat.ts"
import { type DecryptionFailed, type InvalidCid, NetworkError } from "../Errors.ts"
import { type Hosts, urlOf } from "../internal/Hosts.ts"
import type { FetchKeyFailure, KeyShards } from "../KeyShards.ts"
import { type Cid, decodeCid, parseCid } from "../schema/Cid.ts"
import { retrieve, slice } from "../verify/Retrieval.ts"
import { unverifiable } from "../verify/Trustless.ts"
import { planOf, retrieveFromSources } from "./Sources.ts"
import * as Cipher from "../crypto/FileCipher.ts"
import type { ByteRange, Decryption, DecryptOptions, FetchFailure, Options, VerificationReport } from "./Models.ts"

/** What a download needs. */
export interface DownloadDeps {
  readonly hosts: Hosts
  readonly fs: FileSystem.FileSystem
  readonly auth: Auth["Service"]
  readonly keyShards: KeyShards["Service"]
}

/** A download's path inside its CID, as segments. */
export const segmentsOf = (path: string | undefined) => (path ?? "").split("/").filter((segment) => segment !== "")

/** The gateway a download reads from, as a base URL: the caller's, else Walrus' for Walrus content, else IPFS'. */
export const gatewayOf = (hosts: Hosts, options: Options | undefined): string =>
  options?.gateway ??
  (options?.storageType === "walrus" ? hosts.config.hosts.walrusGateway : hosts.config.hosts.gateway)

/** That gateway's client (the same choice as `gatewayOf`). */
export const gatewayClient = (hosts: Hosts, options: Options | undefined) =>
  options?.gateway !== undefined
    ? hosts.gatewayAt(options.gateway)
    : options?.storageType === "walrus"
      ? hosts.walrusGateway
      : hosts.gateway

/** The stored bytes of a CID as the gateway's `cat` gives them, unverified, opened when the stream runs. */
const cat = (
  { hosts }: DownloadDeps,
  cid: Cid,
  options: Options | undefined
): Stream.Stream<Uint8Array, FetchFailure> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const inside = segmentsOf(options?.path)
        .map((segment) => `/${encodeURIComponent(segment)}`)
        .join("")
      // Walrus' gateway serves content as a browser asks for it; the IPFS gateway as kubo's `cat`.
      const fromWalrus = options?.storageType === "walrus"
      const path = fromWalrus ? `/ipfs/${cid}${inside}` : `/api/v0/cat/${cid}${inside}`
      const request = fromWalrus ? HttpClientRequest.get(path) : HttpClientRequest.post(path)
      const response = yield* gatewayClient(hosts, options).execute(request)
      const url = urlOf(response.request)
      const method = response.request.method
      return response.stream.pipe(Stream.mapError((cause) => new NetworkError({ method, url, cause })))
    })
  )

/**
 * The stored bytes of a CID (or of `range` of them), verified as `options.verification` asks
 * (`required` unless the caller names another: a gateway that cannot answer verifiably is then
 * `UnverifiableGateway`, whose message says how to opt out); `report` tells, once the stream has
 * opened, whether they were.
 */
const stored = Effect.fnUntraced(function* (
  deps: DownloadDeps,
  cid: Cid,
  options: Options | undefined,
  range: ByteRange | undefined
) {
  const retrieval = { gateway: gatewayClient(deps.hosts, options) }
  const target = { root: decodeCid(cid), path: segmentsOf(options?.path), range }
  const sources = planOf(deps.hosts, cid, target, options, gatewayOf(deps.hosts, options))
  if (sources !== undefined) return retrieveFromSources(sources)
  const verification = options?.verification ?? "required"
  const { stream, report } = yield* retrieve(retrieval, target, { ...options, verification }, cat(deps, cid, options))
  if (verification !== "required") return { stream, report }
  return { stream: Stream.catchTag(stream, "VerificationUnsupported", (e) => Stream.fail(unverifiable(e))), report }
})

/** The stored bytes of a CID (never decrypted), verified as asked, opened when the stream runs. */
export const open = (
  deps: DownloadDeps,
  cid: string,
  options: Options | undefined
): Stream.Stream<Uint8Array, FetchFailure> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const valid = yield* parseCid(cid)
      return (yield* stored(deps, valid, options, options?.range)).stream
    })
  )

/** The master key: given, or recovered from the key nodes for the signer. */
export const resolveKey = (
  { auth, keyShards }: DownloadDeps,
  cid: string,
  decryption: Decryption
): Effect.Effect<MasterKey, FetchKeyFailure | SignInFailure> =>
  "masterKey" in decryption
    ? Effect.succeed(decryption.masterKey)
    : Effect.gen(function* () {
        const token = yield* auth.token(decryption.signer)
        return yield* keyShards.fetchKey({
          cid,
          address: decryption.signer.address,
          token,
          ...(decryption.dynamicData === undefined ? {} : { dynamicData: decryption.dynamicData })
        })
      })

/**
 * The content, decrypted when asked (authenticated only once the stream has ended), and the
 * report of its verification; the key is fetched before any byte.
 */
export const content = Effect.fnUntraced(function* (
  deps: DownloadDeps,
  cid: string,
  options: DecryptOptions | undefined
): Effect.fn.Return<
  {
    readonly stream: Stream.Stream<Uint8Array, FetchFailure | DecryptionFailed>
    readonly report: Effect.Effect<VerificationReport>
  },
  InvalidCid | FetchKeyFailure | SignInFailure
> {
  const valid = yield* parseCid(cid)
  if (options?.decrypt === undefined) return yield* stored(deps, valid, options, options?.range)
  // Before downloading: without the key there is no point fetching the bytes.
  const key = yield* resolveKey(deps, valid, options.decrypt)
  const { stream, report } = yield* stored(deps, valid, options, undefined)
  // The whole ciphertext is read even for a range: the tag at its end authenticates it all.
  return { stream: stream.pipe(Cipher.decryptStreamUnverified(key), slice(options.range, "read-all")), report }
})
