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
 * should be, never the value given; what an object should be is written from its schema's fields
 * (`Expected.ts`), so it names exactly what is checked.
 *
 * @internal
 */
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import type { AccessControl } from "../AccessControl.ts"
import type { Auth } from "../Auth.ts"
import {
  ApplyInput,
  DelegateInput,
  RevokeDelegatesInput,
  RevokeInput,
  ShareInput,
  TransferInput,
  UpdateInput
} from "../accessControl/Models.ts"
import { ApiKeyInput, JwtInput, RefreshInput, SignInOptions, TokenCheckInput } from "../auth/Models.ts"
import type { Download } from "../Download.ts"
import {
  DecryptOptions,
  Options as DownloadOptions,
  ListOptions,
  ToDirectoryOptions,
  ToFileOptions
} from "../download/Models.ts"
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
  X402PriceInput,
  X402QuoteInput,
  X402RenewInput,
  X402RenewPriceInput,
  X402UploadInput
} from "../payment/Models.ts"
import { Credential } from "../schema/Credential.ts"
import { ServiceSchema as SignerSchema } from "../signer/Service.ts"
import type { Upload } from "../Upload.ts"
import * as Input from "../upload/Input.ts"
import {
  CarOptions,
  EncryptedNamedOptions,
  EncryptionOptions,
  FileOptions,
  NamedOptions,
  Options,
  RepairOptions
} from "../upload/Options.ts"
import { SyncHistoryOptions, SyncOptions } from "../upload/Sync.ts"
import { expectedOf } from "./Expected.ts"

/** One argument: its schema, what it should be (for the error), and what to give for a path string. */
interface Argument {
  readonly schema: Schema.Top
  readonly expected: string
  /** Said to a caller who gave a path as a string (the provider SDK's `upload("./file")`). */
  readonly onPath?: string | undefined
}

const arg = (schema: Schema.Top, expected: string, onPath?: string): Argument => ({ schema, expected, onPath })

/** The text of an object schema (or a union of them), from its fields (`Expected.ts`). */
const fieldsText = (schema: Schema.Top): string => {
  const expected = expectedOf(schema.ast)
  // The table is fixed: a schema that is no object is a mistake in it, found when the facade loads.
  if (expected === undefined) throw new Error(`the facade's table gives a schema without fields: ${schema.ast._tag}`)
  return expected
}

/** An object argument, said as its schema's fields. */
const fields = (schema: Schema.Top): Argument => arg(schema, fieldsText(schema))

const from = '(Upload from "lighthouse-effect")'
/** What a caller who gave a path string is told to give instead, by what the argument takes. */
const pathAdvice = {
  file: `give Upload.Input.path(path) for a file on disk ${from}`,
  folder: `give Upload.Input.directory(path) for a folder on disk ${from}`,
  either: `give Upload.Input.path(path) for a file on disk, Upload.Input.directory(path) for a folder ${from}`
}

/** A path given as a string, alone or in an array. */
const isPathString = (u: unknown) => typeof u === "string" || (Array.isArray(u) && u.some((v) => typeof v === "string"))
/** An object argument that may be left out. */
const opt = (schema: Schema.Top): Argument => ({
  schema: Schema.UndefinedOr(schema),
  expected: `${fieldsText(schema)} or undefined`
})

const cid = arg(Schema.String, "a CID (string)")
const apiKey = arg(Credential, "an API key (string or Redacted)")
const signer = arg(SignerSchema, "a signer ({ address, signMessage })")

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
    jwt: [fields(JwtInput)],
    refresh: [fields(RefreshInput)],
    signIn: [signer, opt(SignInOptions)],
    token: [signer],
    checkToken: [fields(TokenCheckInput)],
    forget: [arg(Schema.String, "an address (string)")],
    apiAuthMessage: [arg(Schema.String, "a public key (string)")],
    apiMessage: [arg(Schema.String, "a public key (string)")],
    apiKey: [fields(ApiKeyInput)],
    createApiKey: [signer],
    oneTimeToken: [signer]
  },
  keyShards: {
    save: [fields(SaveInput)],
    recover: [fields(RecoverInput)],
    fetchKey: [fields(FetchKeyInput)]
  },
  accessControl: {
    apply: [fields(ApplyInput)],
    update: [fields(UpdateInput)],
    get: [cid],
    share: [fields(ShareInput)],
    revoke: [fields(RevokeInput)],
    transferOwnership: [fields(TransferInput)],
    delegateAllFiles: [fields(DelegateInput)],
    revokeDelegates: [fields(RevokeDelegatesInput)]
  },
  upload: {
    file: [arg(Input.FileInput, "a file input", pathAdvice.file), fields(FileOptions)],
    folder: [arg(Input.FolderInput, "a folder input", pathAdvice.folder), fields(Options)],
    text: [arg(Schema.String, "a string"), fields(NamedOptions)],
    buffer: [arg(Schema.Uint8Array, "a Uint8Array"), fields(NamedOptions)],
    car: [arg(Input.FileInput, "a file input", pathAdvice.file), fields(CarOptions)],
    encryptedFile: [arg(Input.FileInput, "a file input", pathAdvice.file), fields(EncryptionOptions)],
    encryptedFiles: [
      arg(
        Schema.Union([Input.FolderInput, Schema.Array(Input.FileInput)]),
        "a folder input or an array of file inputs",
        pathAdvice.either
      ),
      fields(EncryptionOptions)
    ],
    encryptedText: [arg(Schema.String, "a string"), fields(EncryptedNamedOptions)],
    encryptedBuffer: [arg(Schema.Uint8Array, "a Uint8Array"), fields(EncryptedNamedOptions)],
    repair: [fields(RepairOptions)],
    sync: [arg(Schema.String, "a path (string)"), fields(SyncOptions)],
    syncHistory: [arg(Schema.String, "a path (string)"), fields(SyncHistoryOptions)]
  },
  download: {
    stream: [cid, opt(DownloadOptions)],
    bytes: [cid, opt(DecryptOptions)],
    retrieve: [cid, opt(DecryptOptions)],
    toFile: [cid, arg(Schema.String, "a path (string)"), opt(ToFileOptions)],
    toDirectory: [cid, arg(Schema.String, "a path (string)"), opt(ToDirectoryOptions)],
    list: [cid, opt(ListOptions)]
  },
  files: {
    usage: [apiKey],
    uploads: [apiKey, opt(UploadsOptions)],
    uploadsPage: [apiKey, opt(UploadsPageOptions)],
    fileInfo: [cid],
    dealStatus: [cid],
    proof: [cid],
    deleteFile: [apiKey, arg(Schema.String, "a file id (string)")],
    walrusBlobs: [cid],
    deleteFileWalrus: [apiKey, arg(Schema.String, "a file id (string)")],
    pin: [apiKey, fields(PinInput)],
    requestPdpDeal: [apiKey, cid],
    pdpDealStatus: [cid],
    awaitPdpDeal: [cid, opt(AwaitPdpDealOptions)],
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
    publishRecord: [apiKey, fields(PublishRecordInput)],
    records: [apiKey],
    removeKey: [apiKey, arg(Schema.String, "a key name (string)")]
  },
  payment: {
    price: [fields(PriceInput)],
    quote: [fields(QuoteInput)],
    quotePaths: [fields(QuotePathsInput)],
    fund: [fields(FundInput)],
    tokenStatus: [fields(Target)],
    contractBalance: [fields(Target)],
    balance: [fields(BalanceInput)],
    paymentCount: [opt(NetworkInput)],
    x402Upload: [fields(X402UploadInput)],
    x402Quote: [fields(X402QuoteInput)],
    x402Price: [fields(X402PriceInput)],
    x402RenewPrice: [fields(X402RenewPriceInput)],
    x402Renew: [fields(X402RenewInput)]
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
