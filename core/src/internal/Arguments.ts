/**
 * The argument shapes of every method of the Promise facade, checked before a call runs. A
 * JavaScript caller gets no help from the types: a number where a CID goes, `null` for the
 * options, a signer without `signMessage` must fail with the typed `InvalidArgument`, not with a
 * `TypeError` deep inside. Only shapes are checked here (types of fields, one level down); the
 * services still check the values (CID forms, key lengths, conditions) with their own errors.
 * The error names the method, the argument and what it should be, never the value given.
 *
 * @internal
 */
import * as Redacted from "effect/Redacted"
import type { AccessControl } from "../AccessControl.ts"
import type { Auth } from "../Auth.ts"
import type { Download } from "../Download.ts"
import { InvalidArgument } from "../Errors.ts"
import type { Files } from "../Files.ts"
import type { Ipns } from "../Ipns.ts"
import type { KeyShards } from "../KeyShards.ts"
import type { Payment } from "../Payment.ts"
import type { Upload } from "../Upload.ts"
import * as Input from "../upload/Input.ts"

type Check = (u: unknown) => boolean

/** One argument: its check, what it should be (for the error), and what to give for a path string. */
interface Argument {
  readonly check: Check
  readonly expected: string
  /** Said to a caller who gave a path as a string (the provider SDK's `upload("./file")`). */
  readonly onPath?: string | undefined
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const string: Check = (u) => typeof u === "string"
const boolean: Check = (u) => typeof u === "boolean"
const number: Check = (u) => typeof u === "number"
const amount: Check = (u) => typeof u === "number" || typeof u === "bigint"
const fn: Check = (u) => typeof u === "function"
const token: Check = (u) => typeof u === "string" || Redacted.isRedacted(u)
const bytes: Check = (u) => u instanceof Uint8Array
const array =
  (item: Check): Check =>
  (u) =>
    Array.isArray(u) && u.every(item)
const oneOf =
  (...checks: ReadonlyArray<Check>): Check =>
  (u) =>
    checks.some((check) => check(u))
const optional =
  (check: Check): Check =>
  (u) =>
    u === undefined || check(u)
const struct =
  (fields: Readonly<Record<string, Check>>): Check =>
  (u) =>
    isRecord(u) && Object.entries(fields).every(([key, check]) => check(u[key]))

const fileInput: Check = Input.isFileInput
const folderInput: Check = Input.isFolderInput

const arg = (check: Check, expected: string, onPath?: string): Argument => ({ check, expected, onPath })

const from = '(Upload from "lighthouse-effect")'
/** What a caller who gave a path string is told to give instead, by what the argument takes. */
const pathAdvice = {
  file: `give Upload.Input.path(path) for a file on disk ${from}`,
  folder: `give Upload.Input.directory(path) for a folder on disk ${from}`,
  either: `give Upload.Input.path(path) for a file on disk, Upload.Input.directory(path) for a folder ${from}`
}

/** A path given as a string, alone or in an array. */
const isPathString = (u: unknown) => typeof u === "string" || (Array.isArray(u) && u.some((v) => typeof v === "string"))
const opt = (check: Check, expected: string): Argument => ({
  check: optional(check),
  expected: `${expected} or undefined`
})

const cid = arg(string, "a CID (string)")
const apiKey = arg(token, "an API key (string or Redacted)")
const signer = arg(struct({ address: string, signMessage: fn }), "a signer ({ address, signMessage })")
const shards = array(isRecord)
const dealParameters = optional(oneOf((u) => u === null, isRecord))

const uploadOptions = {
  apiKey: token,
  cidVersion: optional((u) => u === 0 || u === 1),
  dealParameters,
  onProgress: optional(fn),
  verify: optional(boolean)
}
const encryptionOptions = { ...uploadOptions, address: string, token, shareTo: optional(array(string)) }
const storage = { storageType: optional(string) }
const named = { name: optional(string), mimeType: optional(string) }
const owned = { address: string, cid: string, token }
const target = { network: optional(string), token: optional(string) }
const downloadOptions = {
  gateway: optional(string),
  path: optional(string),
  ...storage,
  verification: optional(
    oneOf(
      (u) => u === "required",
      (u) => u === "if-supported",
      (u) => u === "off"
    )
  ),
  trustless: optional(
    oneOf(
      (u) => u === "car",
      (u) => u === "raw"
    )
  ),
  range: optional(struct({ offset: number, length: optional(number) }))
}
const decryption = oneOf(
  struct({ masterKey: token }),
  struct({ signer: struct({ address: string, signMessage: fn }), dynamicData: optional(isRecord) })
)
const decryptOptions = { ...downloadOptions, decrypt: optional(decryption) }
const sizedFile = oneOf(amount, struct({ fileSize: amount, fileName: optional(string) }))
const quoteInput = oneOf(number, fileInput, folderInput)

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
    nodeMessage: [arg(string, "an address (string)")],
    jwt: [
      arg(struct({ address: string, signature: token, chain: optional(string) }), "{ address, signature, chain? }")
    ],
    refresh: [arg(struct({ address: string, refreshToken: token }), "{ address, refreshToken }")],
    signIn: [signer, opt(struct({ chain: optional(string) }), "{ chain? }")],
    token: [signer],
    forget: [arg(string, "an address (string)")],
    apiAuthMessage: [arg(string, "a public key (string)")],
    apiMessage: [arg(string, "a public key (string)")],
    apiKey: [arg(struct({ publicKey: string, signedMessage: token }), "{ publicKey, signedMessage }")],
    createApiKey: [signer],
    oneTimeToken: [signer]
  },
  keyShards: {
    save: [
      arg(
        struct({ ...owned, keyShards: shards, shareTo: optional(array(string)) }),
        "{ address, cid, token, keyShards, shareTo? }"
      )
    ],
    recover: [
      arg(
        struct({ ...owned, dynamicData: optional(isRecord), count: optional(number) }),
        "{ address, cid, token, dynamicData?, count? }"
      )
    ],
    fetchKey: [arg(struct({ ...owned, dynamicData: optional(isRecord) }), "{ address, cid, token, dynamicData? }")]
  },
  accessControl: {
    apply: [
      arg(
        struct({
          ...owned,
          conditions: array(isRecord),
          aggregator: optional(string),
          chainType: optional(string),
          decryptionType: optional(string),
          keyShards: optional(shards)
        }),
        "{ address, cid, token, conditions, aggregator?, chainType?, decryptionType?, keyShards? }"
      )
    ],
    update: [
      arg(
        struct({ ...owned, conditions: array(isRecord), aggregator: optional(string), chainType: optional(string) }),
        "{ address, cid, token, conditions, aggregator?, chainType? }"
      )
    ],
    get: [cid],
    share: [arg(struct({ ...owned, shareTo: array(string) }), "{ address, cid, token, shareTo }")],
    revoke: [arg(struct({ ...owned, revokeTo: oneOf(string, array(string)) }), "{ address, cid, token, revokeTo }")],
    transferOwnership: [
      arg(
        struct({ ...owned, newOwner: string, resetSharedTo: optional(boolean) }),
        "{ address, cid, token, newOwner, resetSharedTo? }"
      )
    ],
    delegateAllFiles: [
      arg(struct({ address: string, token, delegates: array(string) }), "{ address, token, delegates }")
    ],
    revokeDelegates: [arg(struct({ address: string, token }), "{ address, token }")]
  },
  upload: {
    file: [
      arg(fileInput, "a file input", pathAdvice.file),
      arg(
        struct({ ...uploadOptions, ...storage, wrapWithDirectory: optional(boolean), mimeType: optional(string) }),
        "upload options ({ apiKey, … })"
      )
    ],
    folder: [
      arg(folderInput, "a folder input", pathAdvice.folder),
      arg(struct({ ...uploadOptions, ...storage }), "upload options ({ apiKey, … })")
    ],
    text: [
      arg(string, "a string"),
      arg(struct({ ...uploadOptions, ...storage, ...named }), "upload options ({ apiKey, … })")
    ],
    buffer: [
      arg(bytes, "a Uint8Array"),
      arg(struct({ ...uploadOptions, ...storage, ...named }), "upload options ({ apiKey, … })")
    ],
    car: [
      arg(fileInput, "a file input", pathAdvice.file),
      arg(
        struct({ apiKey: token, dealParameters, onProgress: optional(fn), verify: optional(boolean), ...storage }),
        "{ apiKey, … }"
      )
    ],
    encryptedFile: [
      arg(fileInput, "a file input", pathAdvice.file),
      arg(struct(encryptionOptions), "{ apiKey, address, token, … }")
    ],
    encryptedFiles: [
      arg(oneOf(folderInput, array(fileInput)), "a folder input or an array of file inputs", pathAdvice.either),
      arg(struct(encryptionOptions), "{ apiKey, address, token, … }")
    ],
    encryptedText: [
      arg(string, "a string"),
      arg(struct({ ...encryptionOptions, ...named }), "{ apiKey, address, token, … }")
    ],
    encryptedBuffer: [
      arg(bytes, "a Uint8Array"),
      arg(struct({ ...encryptionOptions, ...named }), "{ apiKey, address, token, … }")
    ]
  },
  download: {
    stream: [cid, opt(struct(downloadOptions), "{ gateway?, path? }")],
    bytes: [cid, opt(struct(decryptOptions), "{ gateway?, path?, decrypt? }")],
    retrieve: [cid, opt(struct(decryptOptions), "{ gateway?, path?, decrypt?, verification? }")],
    toFile: [cid, arg(string, "a path (string)"), opt(struct(decryptOptions), "{ gateway?, path?, decrypt? }")]
  },
  files: {
    usage: [apiKey],
    uploads: [apiKey, opt(struct({ fileType: optional(string), after: optional(string) }), "{ fileType?, after? }")],
    uploadsPage: [
      apiKey,
      opt(struct({ lastKey: optional(string), fileType: optional(string) }), "{ lastKey?, fileType? }")
    ],
    fileInfo: [cid],
    dealStatus: [cid],
    proof: [cid],
    deleteFile: [apiKey, arg(string, "a file id (string)")],
    walrusBlobs: [cid],
    deleteFileWalrus: [apiKey, arg(string, "a file id (string)")],
    pin: [apiKey, arg(struct({ cid: string, fileName: optional(string) }), "{ cid, fileName? }")],
    requestPdpDeal: [apiKey, cid],
    pdpDealStatus: [cid],
    awaitPdpDeal: [
      cid,
      opt(
        struct({ interval: optional(oneOf(string, number)), timeout: optional(oneOf(string, number)) }),
        "{ interval?, timeout? }"
      )
    ],
    quote: [
      apiKey,
      arg(
        oneOf(quoteInput, array(quoteInput)),
        "a size, a file or folder input, or an array of them",
        pathAdvice.either
      )
    ]
  },
  ipns: {
    generateKey: [apiKey],
    publishRecord: [apiKey, arg(struct({ cid: string, keyName: string }), "{ cid, keyName }")],
    records: [apiKey],
    removeKey: [apiKey, arg(string, "a key name (string)")]
  },
  payment: {
    price: [arg(struct({ ...target, size: amount }), "{ size, network?, token? }")],
    quote: [arg(struct({ ...target, files: array(sizedFile) }), "{ files, network?, token? }")],
    quotePaths: [arg(struct({ ...target, paths: oneOf(string, array(string)) }), "{ paths, network?, token? }")],
    fund: [
      arg(
        struct({
          ...target,
          amount,
          privateKey: optional(token),
          account: optional(isRecord),
          walletClient: optional(isRecord)
        }),
        "{ amount, network?, token?, privateKey? | account? | walletClient? }"
      )
    ],
    tokenStatus: [arg(struct(target), "{ network?, token? }")],
    contractBalance: [arg(struct(target), "{ network?, token? }")],
    balance: [arg(struct({ ...target, address: string }), "{ address, network?, token? }")],
    paymentCount: [opt(struct({ network: optional(string) }), "{ network? }")],
    x402Upload: [
      arg(
        struct({
          file: (u) => typeof Blob !== "undefined" && u instanceof Blob,
          fileName: optional(string),
          account: struct({ address: string, signTypedData: fn }),
          asset: optional(string),
          amount: optional((u) => typeof u === "bigint"),
          nonce: optional(string)
        }),
        "{ file: Blob, account: LocalAccount, fileName?, asset?, amount?: bigint, nonce? }"
      )
    ]
  }
}

export type FacadeService = keyof FacadeServices

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
    if (!argument.check(args[i])) {
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
