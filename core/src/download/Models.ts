/**
 * What downloads take, and how they fail.
 *
 * @since 0.1.0
 */
import type { SignInFailure } from "../Auth.ts"
import type { MasterKey } from "../crypto/FileFormat.ts"
import type {
  ContentVerificationFailed,
  DecryptionFailed,
  HttpStatusError,
  InvalidCid,
  InvalidResponse,
  NetworkError,
  RequestTimedOut,
  VerificationUnsupported
} from "../Errors.ts"
import type { FetchKeyFailure } from "../KeyShards.ts"
import type { Signer } from "../Signer.ts"
import type { StorageType } from "../schema/Walrus.ts"
import type { VerificationReport, VerifyOptions } from "../verify/Retrieval.ts"
import type { ByteRange } from "../verify/Walk.ts"

export type { ByteRange, VerificationReport }

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

/**
 * Options of every download. By default (`verification: "if-supported"`) the content comes from
 * the gateway's trustless answer (`GET /ipfs/{cid}?format=car`) and every block is checked
 * against the CID before its bytes go out; a gateway that cannot answer so is read unverified
 * (`POST /api/v0/cat/{cid}`), and the report says so.
 */
export interface Options extends VerifyOptions {
  /** Gateway host for this call. @default the configured gateway */
  readonly gateway?: string | undefined
  /** A file inside the CID when it is a folder (`sub/file.txt`). */
  readonly path?: string | undefined
  /**
   * `walrus`: content stored on Walrus, read from the Walrus gateway as `GET /ipfs/{cid}[/{path}]`
   * (`gateway` then overrides the configured Walrus gateway). @default "ipfs"
   */
  readonly storageType?: StorageType | undefined
  /**
   * Only these bytes of the file (of the plaintext when decrypting, which still reads the whole
   * file: its tag covers it all). Verified, only the blocks that hold them are fetched.
   */
  readonly range?: ByteRange | undefined
}

/** Options of downloads that may decrypt. */
export interface DecryptOptions extends Options {
  /** Decrypts the content (stored in the provider's encrypted layout). */
  readonly decrypt?: Decryption | undefined
}

/** Why fetching the bytes failed. */
export type FetchFailure =
  | InvalidCid
  | HttpStatusError
  | NetworkError
  | RequestTimedOut
  | InvalidResponse
  | ContentVerificationFailed
  | VerificationUnsupported

/** Why a decrypting download failed. */
export type DecryptFailure = FetchFailure | DecryptionFailed | FetchKeyFailure | SignInFailure

/** A download's bytes, and whether they were verified. */
export interface Retrieved {
  readonly bytes: Uint8Array
  readonly verification: VerificationReport
}
