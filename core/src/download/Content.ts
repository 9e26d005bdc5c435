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
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type { Auth, SignInFailure } from "../Auth.ts"
import type { MasterKey } from "../crypto/FileCipherWeb.ts"
import { type DecryptionFailed, type InvalidCid, NetworkError } from "../Errors.ts"
import { execute, url } from "../internal/http.ts"
import type { FetchKeyFailure, KeyShards } from "../KeyShards.ts"
import type * as LighthouseConfig from "../LighthouseConfig.ts"
import { parseCid } from "../schema/Cid.ts"
import * as Cipher from "../crypto/FileCipherWeb.ts"
import type { Decryption, DecryptOptions, FetchFailure, Options } from "./Models.ts"

/** What a download needs. */
export interface DownloadDeps {
  readonly client: HttpClient.HttpClient
  readonly config: LighthouseConfig.Options
  readonly fs: FileSystem.FileSystem
  readonly auth: Auth["Service"]
  readonly keyShards: KeyShards["Service"]
}

/** The ciphertext (or plaintext) stream of a CID, opened when the stream runs. */
export const open = (
  { client, config }: DownloadDeps,
  cid: string,
  options: Options | undefined
): Stream.Stream<Uint8Array, FetchFailure> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const valid = yield* parseCid(cid)
      const inside = (options?.path ?? "")
        .split("/")
        .filter((segment) => segment !== "")
        .map((segment) => `/${encodeURIComponent(segment)}`)
        .join("")
      // Walrus' gateway serves content as a browser asks for it; the IPFS gateway as kubo's `cat`.
      const fromWalrus = options?.storageType === "walrus"
      const target = fromWalrus
        ? url(options?.gateway ?? config.hosts.walrusGateway, `/ipfs/${valid}${inside}`)
        : url(options?.gateway ?? config.hosts.gateway, `/api/v0/cat/${valid}${inside}`)
      const request = fromWalrus ? HttpClientRequest.get(target) : HttpClientRequest.post(target)
      const response = yield* execute(client, request, {
        style: "http-error",
        timeout: config.transferTimeout
      })
      return response.stream.pipe(Stream.mapError((cause) => new NetworkError({ url: target, cause })))
    })
  )

/** The master key: given, or recovered from the key nodes for the signer. */
const resolveKey = (
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

/** The content, decrypted (unverified until it ends) when asked; the key is fetched first. */
export const content = Effect.fnUntraced(function* (
  deps: DownloadDeps,
  cid: string,
  options: DecryptOptions | undefined
): Effect.fn.Return<
  Stream.Stream<Uint8Array, FetchFailure | DecryptionFailed>,
  InvalidCid | FetchKeyFailure | SignInFailure
> {
  const valid = yield* parseCid(cid)
  const source = open(deps, valid, options)
  if (options?.decrypt === undefined) return source
  // Before downloading: without the key there is no point fetching the bytes.
  const key = yield* resolveKey(deps, valid, options.decrypt)
  return source.pipe(Cipher.decryptStreamUnverified(key))
})
