/**
 * `Download`: content by CID from the gateway (`POST {gateway}/api/v0/cat/{cid}`, spec §7;
 * reference/sdk-behaviour.md §4.5), as a stream, as bytes or into a file, decrypted on the fly
 * when a master key, or a signer entitled to the file's key shards, is given.
 *
 * Only verified plaintext reaches the caller: AES-GCM authenticates a file with one tag at its
 * end, so {@link Service.toFile} writes to a temporary file beside the target and renames it once
 * the tag checks (the target never holds unauthenticated bytes, nor a partial download), and
 * {@link Service.bytes} returns only after the check. {@link Service.stream} gives the bytes as
 * stored, never decrypted. The provider buffered the whole file twice and decrypted in memory.
 *
 * A non-2xx answer is `HTTP error! status {n}` (the provider's wording for this call); no answer
 * is `Network error`; the time-out is the transfer time-out (7 200 000 ms) over the whole download.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import type { PlatformError } from "effect/PlatformError"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import { Auth, type SignInFailure } from "./Auth.ts"
import { LighthouseConfig } from "./Config.ts"
import type { MasterKey } from "./crypto/FileCipherWeb.ts"
import {
  type DecryptionFailed,
  type HttpStatusError,
  type InvalidCid,
  type InvalidResponse,
  NetworkError,
  RequestTimedOut
} from "./Errors.ts"
import { execute, url } from "./internal/http.ts"
import { type FetchKeyFailure, KeyShards } from "./KeyShards.ts"
import { parseCid } from "./schema/Cid.ts"
import type { Signer } from "./Signer.ts"
import * as Cipher from "./crypto/FileCipherWeb.ts"

// =============================================================================
// Models
// =============================================================================

/**
 * How to decrypt: with the file's master key (64-hex, plain or `Redacted`), or with a signer
 * whose JWT (`Auth.token`) lets it recover the key from 3 key nodes (`KeyShards.fetchKey`).
 */
export type Decryption =
  | { readonly masterKey: MasterKey }
  | {
      readonly signer: Signer["Service"]
      /** Values the file's access conditions are evaluated with. */
      readonly dynamicData?: Readonly<Record<string, unknown>> | undefined
    }

/** Options of every download. */
export interface Options {
  /** Gateway host for this call. @default the configured gateway */
  readonly gateway?: string | undefined
  /** A file inside the CID when it is a folder (`sub/file.txt`), read as `/api/v0/cat/{cid}/{path}`. */
  readonly path?: string | undefined
}

/** Options of downloads that may decrypt. */
export interface DecryptOptions extends Options {
  /** Decrypts the content (stored in the provider's encrypted layout). */
  readonly decrypt?: Decryption | undefined
}

/** Why fetching the bytes failed. */
export type FetchFailure = InvalidCid | HttpStatusError | NetworkError | RequestTimedOut | InvalidResponse

/** Why a decrypting download failed. */
export type DecryptFailure = FetchFailure | DecryptionFailed | FetchKeyFailure | SignInFailure

// =============================================================================
// Service
// =============================================================================

export interface Service {
  /** The content as stored (never decrypted), streamed from the gateway. */
  readonly stream: (cid: string, options?: Options) => Stream.Stream<Uint8Array, FetchFailure>
  /** The content in memory: decrypted and verified when asked. */
  readonly bytes: (cid: string, options?: DecryptOptions) => Effect.Effect<Uint8Array, DecryptFailure>
  /**
   * The content into the file at `path`, which appears only once the download (and, when
   * decrypting, the tag check) is complete; an existing file there is replaced.
   */
  readonly toFile: (
    cid: string,
    path: string,
    options?: DecryptOptions
  ) => Effect.Effect<void, DecryptFailure | PlatformError>
}

/**
 * Downloads from the provider's gateway.
 *
 * @category services
 */
export class Download extends Context.Service<Download, Service>()("lighthouse-effect/Download") {}

// =============================================================================
// Constructor
// =============================================================================

const randomSuffix = () =>
  Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, "0")).join("")

/** Builds the service from the HTTP client, the configuration, a file system and the key services. */
export const make = Effect.gen(function* () {
  const client = yield* HttpClient.HttpClient
  const config = yield* LighthouseConfig
  const fs = yield* FileSystem.FileSystem
  const auth = yield* Auth
  const keyShards = yield* KeyShards
  const timeout = config.transferTimeout

  const timedOut = (target: string) => () =>
    Effect.fail(new RequestTimedOut({ url: target, timeoutMillis: Duration.toMillis(timeout) }))

  /** The ciphertext (or plaintext) stream of a CID, opened when the stream runs. */
  const open = (cid: string, options: Options | undefined): Stream.Stream<Uint8Array, FetchFailure> =>
    Stream.unwrap(
      Effect.gen(function* () {
        const valid = yield* parseCid(cid)
        const inside = (options?.path ?? "")
          .split("/")
          .filter((segment) => segment !== "")
          .map((segment) => `/${encodeURIComponent(segment)}`)
          .join("")
        const target = url(options?.gateway ?? config.hosts.gateway, `/api/v0/cat/${valid}${inside}`)
        const response = yield* execute(client, HttpClientRequest.post(target), { style: "http-error", timeout })
        return response.stream.pipe(Stream.mapError((cause) => new NetworkError({ url: target, cause })))
      })
    )

  /** The master key: given, or recovered from the key nodes for the signer. */
  const resolveKey = (
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
  const content = (
    cid: string,
    options: DecryptOptions | undefined
  ): Effect.Effect<
    Stream.Stream<Uint8Array, FetchFailure | DecryptionFailed>,
    InvalidCid | FetchKeyFailure | SignInFailure
  > =>
    Effect.gen(function* () {
      const valid = yield* parseCid(cid)
      const source = open(valid, options)
      if (options?.decrypt === undefined) return source
      // Before downloading: without the key there is no point fetching the bytes.
      const key = yield* resolveKey(valid, options.decrypt)
      return source.pipe(Cipher.decryptStreamUnverified(key))
    })

  const stream = (cid: string, options?: Options): Stream.Stream<Uint8Array, FetchFailure> =>
    open(cid, options).pipe(Stream.withSpan("Download.stream"))

  const bytes = Effect.fn("Download.bytes")(function* (cid: string, options?: DecryptOptions) {
    const source = yield* content(cid, options)
    // Returned only once the whole stream (and with it the GCM tag) has checked out.
    return yield* Stream.mkUint8Array(source).pipe(
      Effect.timeoutOrElse({ duration: timeout, orElse: timedOut(options?.gateway ?? config.hosts.gateway) })
    )
  })

  const toFile = Effect.fn("Download.toFile")(function* (cid: string, path: string, options?: DecryptOptions) {
    const source = yield* content(cid, options)
    const partial = `${path}.${randomSuffix()}.partial`
    yield* source.pipe(
      // `wx`: never write through a file or link someone placed at the temporary name.
      Stream.run(fs.sink(partial, { flag: "wx" })),
      Effect.andThen(fs.rename(partial, path)),
      Effect.timeoutOrElse({ duration: timeout, orElse: timedOut(options?.gateway ?? config.hosts.gateway) }),
      Effect.onError(() => Effect.ignore(fs.remove(partial, { force: true })))
    )
  })

  return Download.of({ stream, bytes, toFile })
})

/** A master key from a hex string, redacted. */
export const masterKey = (hex: string): { readonly masterKey: Redacted.Redacted<string> } => ({
  masterKey: Redacted.make(hex, { label: "MasterKey" })
})

// =============================================================================
// Layers
// =============================================================================

/**
 * The service, given an `HttpClient`, `LighthouseConfig`, a `FileSystem` (for `toFile`), and
 * `Auth` with `KeyShards` (to recover keys for a signer).
 *
 * @category layers
 */
export const layer: Layer.Layer<
  Download,
  never,
  HttpClient.HttpClient | LighthouseConfig | FileSystem.FileSystem | Auth | KeyShards
> = Layer.effect(Download, make)
