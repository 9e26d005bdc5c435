/**
 * What downloads take, and how they fail.
 *
 * @since 0.1.0
 */
import type { SignInFailure } from "../Auth.ts"
import type { MasterKey } from "../crypto/FileCipherWeb.ts"
import type {
  DecryptionFailed,
  HttpStatusError,
  InvalidCid,
  InvalidResponse,
  NetworkError,
  RequestTimedOut
} from "../Errors.ts"
import type { FetchKeyFailure } from "../KeyShards.ts"
import type { Signer } from "../Signer.ts"
import type { StorageType } from "../schema/Walrus.ts"

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
  /**
   * `walrus`: content stored on Walrus, read from the Walrus gateway as `GET /ipfs/{cid}[/{path}]`
   * (`gateway` then overrides the configured Walrus gateway). @default "ipfs"
   */
  readonly storageType?: StorageType | undefined
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
