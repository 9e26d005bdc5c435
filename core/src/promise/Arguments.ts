/**
 * The argument shapes of every method of the Promise facade, checked before a call runs. A
 * JavaScript caller gets no help from the types: a number where a CID goes, `null` for the
 * options, a signer without `signMessage` must fail with the typed `InvalidArgument`, not with a
 * `TypeError` deep inside. Each method has the tuple of its arguments' schemas; an argument is
 * decoded with its schema (the type side: values such as `Redacted` or `File` are taken as they
 * are), and a decoding failure is the `InvalidArgument`. The schemas are the capabilities' own
 * input schemas (their `Models.ts`) where a capability declares them: `Auth`, `KeyShards`,
 * `AccessControl`, `Payment`, `Upload` (`upload/Options.ts`, `upload/Input.ts`), `Download`,
 * `Files` and `Ipns` (and `Signer.ServiceSchema`, `Auth.Credential`). Only shapes are checked
 * (types of fields, one level down); the services still check the values (CID forms, key lengths,
 * conditions) with their own errors. The error names the method, the argument and what it
 * should be, never the value given.
 *
 * @internal
 */
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import type { AccessControl } from "../AccessControl.ts"
import { DelegateInput, RevokeDelegatesInput } from "../accessControl/Delegation.ts"
import { ApplyInput, RevokeInput, ShareInput, TransferInput, UpdateInput } from "../accessControl/Models.ts"
import type { Auth } from "../Auth.ts"
import { ApiKeyInput, JwtInput, RefreshInput, SignInOptions, TokenCheckInput } from "../auth/Models.ts"
import type { Download } from "../Download.ts"
import { DecryptOptions, Options as DownloadOptions, ToFileOptions } from "../download/Models.ts"
import { InvalidArgument } from "../Errors.ts"
import type { Files } from "../Files.ts"
import {
  AwaitPdpDealOptions,
  QuoteInput as FilesQuoteInput,
  PinInput,
  UploadsOptions,
  UploadsPageOptions
} from "../files/Models.ts"
import type { Ipns } from "../Ipns.ts"
import { PublishRecordInput } from "../ipns/Models.ts"
import type { KeyShards } from "../KeyShards.ts"
import { FetchKeyInput, RecoverInput, SaveInput } from "../keyShards/Models.ts"
import type { Payment } from "../Payment.ts"
import {
  BalanceInput,
  FundInput,
  NetworkInput,
  PriceInput,
  QuoteInput,
  QuotePathsInput,
  Target,
  X402QuoteInput,
  X402UploadInput
} from "../payment/Models.ts"
import { Credential } from "../schema/Credential.ts"
import { ServiceSchema as SignerSchema } from "../signer/Service.ts"
import type { Upload } from "../Upload.ts"
import * as Input from "../upload/Input.ts"
import {
  CarOptions,
  EncryptedNamedOptions,
  RepairOptions,
  EncryptionOptions,
  FileOptions,
  NamedOptions,
  Options
} from "../upload/Options.ts"

/** One argument: its schema, what it should be (for the error), and what to give for a path string. */
interface Argument {
  readonly schema: Schema.Top
  readonly expected: string
  /** Said to a caller who gave a path as a string (the provider SDK's `upload("./file")`). */
  readonly onPath?: string | undefined
}

const arg = (schema: Schema.Top, expected: string, onPath?: string): Argument => ({ schema, expected, onPath })

const from = '(Upload from "lighthouse-effect")'
/** What a caller who gave a path string is told to give instead, by what the argument takes. */
const pathAdvice = {
  file: `give Upload.Input.path(path) for a file on disk ${from}`,
  folder: `give Upload.Input.directory(path) for a folder on disk ${from}`,
  either: `give Upload.Input.path(path) for a file on disk, Upload.Input.directory(path) for a folder ${from}`
}

/** A path given as a string, alone or in an array. */
const isPathString = (u: unknown) => typeof u === "string" || (Array.isArray(u) && u.some((v) => typeof v === "string"))
const opt = (schema: Schema.Top, expected: string): Argument => ({
  schema: Schema.UndefinedOr(schema),
  expected: `${expected} or undefined`
})

const cid = arg(Schema.String, "a CID (string)")
const apiKey = arg(Credential, "an API key (string or Redacted)")
const signer = arg(SignerSchema, "a signer ({ address, signMessage })")
const encrypted = "{ apiKey, address, token, … } or { apiKey, signer, … }"

/** The services of the Promise facade, by the name the client has them under. */
export interface FacadeServices {
  readonly auth: Auth["Service"]
  readonly keyShards: KeyShards["Service"]
  readonly accessControl: AccessControl["Service"]
  readonly upload: Upload["Service"]
  readonly download: Download["Service"]
  readonly files: Files["Service"]
  readonly ipns: Ipns["Service"]
  readonly payment: Payment["Service"]
}

type Table<S> = { readonly [K in keyof S]: ReadonlyArray<Argument> }

/** Every method of every service of the facade (the types make sure none is missing). */
export const facadeArguments: { readonly [K in keyof FacadeServices]: Table<FacadeServices[K]> } = {
  auth: {
    nodeMessage: [arg(Schema.String, "an address (string)")],
    jwt: [arg(JwtInput, "{ address, signature, chain? }")],
    refresh: [arg(RefreshInput, "{ address, refreshToken }")],
    signIn: [signer, opt(SignInOptions, "{ chain? }")],
    token: [signer],
    checkToken: [arg(TokenCheckInput, "{ address, token }")],
    forget: [arg(Schema.String, "an address (string)")],
    apiAuthMessage: [arg(Schema.String, "a public key (string)")],
    apiMessage: [arg(Schema.String, "a public key (string)")],
    apiKey: [arg(ApiKeyInput, "{ publicKey, signedMessage }")],
    createApiKey: [signer],
    oneTimeToken: [signer]
  },
  keyShards: {
    save: [arg(SaveInput, "{ address, cid, token, keyShards, shareTo? }")],
    recover: [arg(RecoverInput, "{ address, cid, token, dynamicData?, count? }")],
    fetchKey: [arg(FetchKeyInput, "{ address, cid, token, dynamicData? }")]
  },
  accessControl: {
    apply: [
      arg(ApplyInput, "{ address, cid, token, conditions, aggregator?, chainType?, decryptionType?, keyShards? }")
    ],
    update: [arg(UpdateInput, "{ address, cid, token, conditions, aggregator?, chainType? }")],
    get: [cid],
    share: [arg(ShareInput, "{ address, cid, token, shareTo }")],
    revoke: [arg(RevokeInput, "{ address, cid, token, revokeTo }")],
    transferOwnership: [arg(TransferInput, "{ address, cid, token, newOwner, resetSharedTo? }")],
    delegateAllFiles: [arg(DelegateInput, "{ address, token, delegates }")],
    revokeDelegates: [arg(RevokeDelegatesInput, "{ address, token }")]
  },
  upload: {
    file: [arg(Input.FileInput, "a file input", pathAdvice.file), arg(FileOptions, "upload options ({ apiKey, … })")],
    folder: [
      arg(Input.FolderInput, "a folder input", pathAdvice.folder),
      arg(Options, "upload options ({ apiKey, … })")
    ],
    text: [arg(Schema.String, "a string"), arg(NamedOptions, "upload options ({ apiKey, … })")],
    buffer: [arg(Schema.Uint8Array, "a Uint8Array"), arg(NamedOptions, "upload options ({ apiKey, … })")],
    car: [arg(Input.FileInput, "a file input", pathAdvice.file), arg(CarOptions, "{ apiKey, … }")],
    encryptedFile: [arg(Input.FileInput, "a file input", pathAdvice.file), arg(EncryptionOptions, encrypted)],
    encryptedFiles: [
      arg(
        Schema.Union([Input.FolderInput, Schema.Array(Input.FileInput)]),
        "a folder input or an array of file inputs",
        pathAdvice.either
      ),
      arg(EncryptionOptions, encrypted)
    ],
    encryptedText: [arg(Schema.String, "a string"), arg(EncryptedNamedOptions, encrypted)],
    encryptedBuffer: [arg(Schema.Uint8Array, "a Uint8Array"), arg(EncryptedNamedOptions, encrypted)],
    repair: [arg(RepairOptions, "{ apiKey, address, token, deleteOrphans? } or { apiKey, signer, deleteOrphans? }")]
  },
  download: {
    stream: [cid, opt(DownloadOptions, "{ gateway?, path?, storageType?, range?, verification?, trustless? }")],
    bytes: [cid, opt(DecryptOptions, "{ gateway?, path?, decrypt? }")],
    retrieve: [cid, opt(DecryptOptions, "{ gateway?, path?, decrypt?, verification? }")],
    toFile: [cid, arg(Schema.String, "a path (string)"), opt(ToFileOptions, "{ gateway?, path?, decrypt?, resume? }")]
  },
  files: {
    usage: [apiKey],
    uploads: [apiKey, opt(UploadsOptions, "{ fileType?, after? }")],
    uploadsPage: [apiKey, opt(UploadsPageOptions, "{ lastKey?, fileType? }")],
    fileInfo: [cid],
    dealStatus: [cid],
    proof: [cid],
    deleteFile: [apiKey, arg(Schema.String, "a file id (string)")],
    walrusBlobs: [cid],
    deleteFileWalrus: [apiKey, arg(Schema.String, "a file id (string)")],
    pin: [apiKey, arg(PinInput, "{ cid, fileName? }")],
    requestPdpDeal: [apiKey, cid],
    pdpDealStatus: [cid],
    awaitPdpDeal: [cid, opt(AwaitPdpDealOptions, "{ interval?, timeout? }")],
    quote: [
      apiKey,
      arg(
        Schema.Union([FilesQuoteInput, Schema.Array(FilesQuoteInput)]),
        "a size, a file or folder input, or an array of them",
        pathAdvice.either
      )
    ]
  },
  ipns: {
    generateKey: [apiKey],
    publishRecord: [apiKey, arg(PublishRecordInput, "{ cid, keyName }")],
    records: [apiKey],
    removeKey: [apiKey, arg(Schema.String, "a key name (string)")]
  },
  payment: {
    price: [arg(PriceInput, "{ size, network?, token? }")],
    quote: [arg(QuoteInput, "{ files, network?, token? }")],
    quotePaths: [arg(QuotePathsInput, "{ paths, network?, token? }")],
    fund: [arg(FundInput, "{ amount, network?, token?, privateKey? | account? | walletClient? }")],
    tokenStatus: [arg(Target, "{ network?, token? }")],
    contractBalance: [arg(Target, "{ network?, token? }")],
    balance: [arg(BalanceInput, "{ address, network?, token? }")],
    paymentCount: [opt(NetworkInput, "{ network? }")],
    x402Upload: [
      arg(
        X402UploadInput,
        "{ file: Blob, account: LocalAccount, fileName?, network?, asset?, maxAmount?: bigint, maxTimeoutSeconds?, amount?: bigint, nonce? }"
      )
    ],
    x402Quote: [
      arg(X402QuoteInput, "{ file: Blob, fileName?, network?, asset?, maxAmount?: bigint, maxTimeoutSeconds? }")
    ]
  }
}

export type FacadeService = keyof FacadeServices

/** Decodes a value already of the schema's type (a `Redacted`, a `File`): the type side, no transformation. */
const decode = (schema: Schema.Top) =>
  Schema.decodeUnknownExit(Schema.toType(schema) as Schema.Codec<unknown, unknown, never, never>)

/** The first argument of `service.method` that has the wrong shape, as the typed error; else undefined. */
export const checkArguments = (
  service: FacadeService,
  method: string,
  args: ReadonlyArray<unknown>
): InvalidArgument | undefined => {
  const expected = (facadeArguments[service] as Readonly<Record<string, ReadonlyArray<Argument> | undefined>>)[method]
  if (expected === undefined) return undefined
  if (args.length > expected.length) {
    return new InvalidArgument({
      method: `${service}.${method}`,
      detail: `takes at most ${expected.length} arguments and { signal }, got ${args.length}`
    })
  }
  for (const [i, argument] of expected.entries()) {
    if (Exit.isFailure(decode(argument.schema)(args[i]))) {
      const advice =
        argument.onPath !== undefined && isPathString(args[i]) ? `, not a path string: ${argument.onPath}` : ""
      return new InvalidArgument({
        method: `${service}.${method}`,
        detail: `argument ${i + 1} must be ${argument.expected}${advice}`
      })
    }
  }
  return undefined
}
