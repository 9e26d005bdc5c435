/**
 * `Download`: content by CID from the gateway, as a stream, as bytes or into a file, decrypted
 * on the fly when a master key, or a signer entitled to the file's key shards, is given.
 *
 * Verified by default: the content comes as the gateway's trustless CAR
 * (`GET {gateway}/ipfs/{cid}?format=car`) and every block is checked against the CID while it
 * streams (`ContentVerificationFailed` names the CID and what was wrong); a gateway that cannot
 * answer so fails the download (`UnverifiableGateway`). Unverified bytes only when asked by name:
 * `verification: "if-supported"` then reads such a gateway with `POST {gateway}/api/v0/cat/{cid}`,
 * which the result reports (`verified: false`), and `"off"` never verifies.
 *
 * Only verified plaintext reaches the caller: AES-GCM authenticates a file with one tag at its
 * end, so `toFile` writes to a temporary file beside the target and renames it once
 * the tag checks (the target never holds unauthenticated bytes, nor a partial download), and
 * `bytes` returns only after the check. `stream` gives the bytes as
 * stored, never decrypted. The provider buffered the whole file twice and decrypted in memory.
 *
 * A non-2xx answer is `HTTP error! status {n}` (the provider's wording for this call); no answer
 * is `Network error`; the time-out is the transfer time-out (7 200 000 ms) over the whole download.
 *
 * Every call makes one plan (`download/Plan.ts`: what is read, from which lanes: the call's
 * `sources`, else the configuration's, else the own gateway alone) and runs it on one engine
 * (`Engine.ts`, its strategies in `Strategies.ts` and `Split.ts`, a lane's reading in `Open.ts`,
 * the lanes' state and failures in `Lanes.ts`); options the plan cannot honour together are
 * refused before any request (`InvalidArgument`, its detail saying why). `Content.ts` adds the key,
 * `Verified.ts` the `bytes` and `toFile` modes, `Resume.ts` a resumed `toFile`, `Models.ts` the options.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import type { PlatformError } from "effect/PlatformError"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as Content from "./download/Content.ts"
import type {
  DecryptFailure,
  DecryptOptions,
  FetchFailure,
  ListOptions,
  Options,
  Retrieved,
  ToDirectoryOptions,
  ToFileFailure,
  ToFileOptions,
  TreeEntry,
  TreeFailure,
  TreeReport,
  VerificationReport
} from "./download/Models.ts"
import * as Tree from "./download/Tree.ts"
import * as Verified from "./download/Verified.ts"
import * as Hosts from "./internal/Hosts.ts"
import { KeyShards } from "./KeyShards.ts"
import { LighthouseConfig } from "./LighthouseConfig.ts"

export * from "./download/Models.ts"

// =============================================================================
// Service
// =============================================================================

/**
 * What the `Download` service offers.
 *
 * @category models
 */
export interface Service {
  /** The content as stored (never decrypted), streamed from the gateway. */
  readonly stream: (cid: string, options?: Options) => Stream.Stream<Uint8Array, FetchFailure>
  /** The content in memory: decrypted and verified when asked. */
  readonly bytes: (cid: string, options?: DecryptOptions) => Effect.Effect<Uint8Array, DecryptFailure>
  /** As `bytes`, with the report of the content's verification against its CID. */
  readonly retrieve: (cid: string, options?: DecryptOptions) => Effect.Effect<Retrieved, DecryptFailure>
  /**
   * The content into the file at `path`, which appears only once the download (and, when
   * decrypting, the tag check) is complete; an existing file there is replaced. The result
   * reports the content's verification against its CID. With `resume: true`, a partial download
   * (`<path>.partial`, which holds the stored bytes, ciphertext when decrypting; or, for a plain
   * file, the file at `path`) is checked against the CID and continued, and the whole file checked
   * again (size and blocks) before it is renamed into place; neither name is followed if it is a
   * link (`NotARegularFile`). One download per path at a time: the call holds `<path>.lock` (its
   * process id inside) while it runs, and a second call for the path fails with
   * `DownloadInProgress` (a lock left by a process that is gone is taken over).
   */
  readonly toFile: (
    cid: string,
    path: string,
    options?: ToFileOptions
  ) => Effect.Effect<VerificationReport, ToFileFailure | PlatformError>
  /**
   * The folder at `cid` into the directory `dir` (made when absent), from one trustless CAR of its
   * whole DAG, every block checked as it streams and each file written as its blocks arrive,
   * beside its place, renamed once whole and verified. Only what the DAG says lands, inside `dir`:
   * a name with a separator, `.`/`..`, NUL or a control character, a drive letter, a name given
   * twice, a symlink, a path too long for the platform is skipped and reported, never followed.
   * An existing file with the folder's bytes is kept (a re-run resumes); one that differs is
   * replaced only with `force`, else skipped and reported. One download per directory at a time
   * (`<dir>.lock`). A failure leaves only whole, verified files in `dir`.
   */
  readonly toDirectory: (
    cid: string,
    dir: string,
    options?: ToDirectoryOptions
  ) => Effect.Effect<TreeReport, TreeFailure>
  /**
   * The entries of the folder at `cid` (with `recursive`, of its whole tree): path, type, a file's
   * size, CID; entries `toDirectory` would refuse are listed as refused, with why. Verified like
   * a download: read from the same CAR of the whole DAG, every block checked.
   */
  readonly list: (cid: string, options?: ListOptions) => Effect.Effect<ReadonlyArray<TreeEntry>, TreeFailure>
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

/**
 * Builds the service from the HTTP client, the configuration, a file system and the key services.
 *
 * @category constructors
 */
export const make = Effect.gen(function* () {
  const deps: Content.DownloadDeps = {
    hosts: Hosts.make(yield* LighthouseConfig, yield* HttpClient.HttpClient),
    fs: yield* FileSystem.FileSystem,
    keyShards: yield* KeyShards
  }
  return Download.of({
    stream: (cid, options) => Content.open(deps, cid, options).pipe(Stream.withSpan("Download.stream")),
    bytes: (cid, options) => Verified.bytes(deps, cid, options),
    retrieve: (cid, options) => Verified.retrieve(deps, cid, options),
    toFile: (cid, path, options) => Verified.toFile(deps, cid, path, options),
    toDirectory: (cid, dir, options) => Tree.toDirectory(deps, cid, dir, options),
    list: (cid, options) => Tree.list(deps, cid, options)
  })
})

/**
 * A master key from a hex string, redacted: the `decrypt` option of a download whose key the caller holds.
 *
 * @category constructors
 */
export const masterKey = (hex: string): { readonly masterKey: Redacted.Redacted<string> } => ({
  masterKey: Redacted.make(hex, { label: "MasterKey" })
})

// =============================================================================
// Layers
// =============================================================================

/**
 * The service, given an `HttpClient`, `LighthouseConfig`, a `FileSystem` (for `toFile`), and
 * `KeyShards` (to recover keys for an owner).
 *
 * @category layers
 */
export const layer: Layer.Layer<
  Download,
  never,
  HttpClient.HttpClient | LighthouseConfig | FileSystem.FileSystem | KeyShards
> = Layer.effect(Download, make)
