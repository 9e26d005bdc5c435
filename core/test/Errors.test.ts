import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted, Schema } from "effect"
import * as Errors from "../src/Errors.ts"

const cause = new Error("boom")

/** Every catalogue error with the provider's text, to the letter. */
const catalogue: ReadonlyArray<readonly [Error & { readonly _tag: string }, string, string]> = [
  [new Errors.InvalidCid({ cid: "x" }), "InvalidCid", "Invalid CID"],
  [new Errors.InvalidKeyShards({ count: 4 }), "InvalidKeyShards", "keyShards must be an array of 5 objects"],
  [
    new Errors.ConditionValidationError({ detail: `"conditions[0].id" must be greater than or equal to 1` }),
    "ConditionValidationError",
    `Condition validation error: "conditions[0].id" must be greater than or equal to 1`
  ],
  [new Errors.InvalidSignature({}), "InvalidSignature", "Invalid Signature"],
  [new Errors.InvalidSignature({ cause }), "InvalidSignature", "Invalid Signature"],
  [new Errors.CidNotFound({ cid: "Qm" }), "CidNotFound", "cid not found"],
  [new Errors.CannotRecoverKey({ reason: "too few" }), "CannotRecoverKey", "can't recover Key"],
  [
    new Errors.KeyShardsDisagree({ threshold: 3, received: 4, badShards: [2] }),
    "KeyShardsDisagree",
    "can't recover Key"
  ],
  [new Errors.EncryptionFailed({ cause }), "EncryptionFailed", "Error encrypting file: boom"],
  [new Errors.InvalidPublicKey({ publicKey: "nope" }), "InvalidPublicKey", "Invalid public Key"],
  [new Errors.InvalidPrivateKey({}), "InvalidPrivateKey", "Private key must be 64 hex characters"],
  [new Errors.ProofNotFound({ cid: "Qm" }), "ProofNotFound", "Proof Doesn't exist yet"],
  [new Errors.ContentUnreachable({ cid: "Qm" }), "ContentUnreachable", "Content not reachable: Qm"],
  [
    new Errors.PdpSizeLimitExceeded({ cid: "Qm", size: 2, limit: 1 }),
    "PdpSizeLimitExceeded",
    "File too large for a PDP deal: 2 bytes, the limit is 1"
  ],
  [new Errors.PdpDealTimedOut({ cid: "Qm", waitedMillis: 5 }), "PdpDealTimedOut", "No PDP deal for Qm after 5 ms"],
  [new Errors.RequestFailed({ status: 401, url: "u" }), "RequestFailed", "Request failed with status code 401"],
  [new Errors.HttpStatusError({ status: 500, url: "u" }), "HttpStatusError", "HTTP error! status 500"],
  [
    new Errors.TickerPriceFailed({ detail: "HTTP error! status 502" }),
    "TickerPriceFailed",
    "Failed to get ticker price: HTTP error! status 502"
  ],
  [new Errors.NetworkError({ url: "u", cause }), "NetworkError", "Network error"],
  [new Errors.RequestTimedOut({ url: "u", timeoutMillis: 8000 }), "RequestTimedOut", "Request timed out"],
  [new Errors.UnsupportedNetwork({ network: "mars" }), "UnsupportedNetwork", "Unsupported Network!!!"],
  [new Errors.TokenNotProvided({}), "TokenNotProvided", "Token not provided!!!"],
  [new Errors.PrivateKeyNotFound({}), "PrivateKeyNotFound", "Private Key not found!!!"],
  [
    new Errors.ThresholdExceedsKeyCount({ threshold: 6, keyCount: 5 }),
    "ThresholdExceedsKeyCount",
    "keyCount must be greater then threshold"
  ],
  [
    new Errors.KeyVectorLengthMismatch({ expected: 3, received: 2 }),
    "KeyVectorLengthMismatch",
    "key vector Length don't match"
  ],
  [new Errors.DuplicateFileName({ fileName: "a.txt" }), "DuplicateFileName", "Duplicate file name found: a.txt"],
  [new Errors.AuthTokenMustBeJwt({}), "AuthTokenMustBeJwt", "auth_token must be a JWT"],
  [new Errors.AccessDenied({ nodeId: 2, cid: "Qm" }), "AccessDenied", "Access Denied"],
  [new Errors.DecryptionFailed({ reason: "tag mismatch" }), "DecryptionFailed", "Decryption failed: tag mismatch"],
  [
    new Errors.CipherWorkerFailed({ reason: "a Worker threw: boom" }),
    "CipherWorkerFailed",
    "The cipher worker failed: a Worker threw: boom"
  ],
  [
    new Errors.InvalidKeySplit({ threshold: 1, keyCount: 5, reason: "threshold must be at least 2" }),
    "InvalidKeySplit",
    "Invalid key split: threshold must be at least 2"
  ],
  [new Errors.InvalidMasterKey({ reason: "not 64 hex" }), "InvalidMasterKey", "Invalid master key: not 64 hex"],
  [
    new Errors.InvalidResponse({ url: "https://api.lighthouse.storage/x", detail: "Expected number" }),
    "InvalidResponse",
    "Invalid response from https://api.lighthouse.storage/x: Expected number"
  ],
  [
    new Errors.NodeError({ nodeId: 3, statusCode: 404, body: {}, nodeMessage: "fetch Error" }),
    "NodeError",
    "fetch Error"
  ],
  [
    new Errors.NodesDisagree({ operation: "saveShards", answers: [] }),
    "NodesDisagree",
    "The key nodes did not agree on saveShards"
  ],
  [new Errors.UploadRejected({ status: 402, reason: "quota exceeded" }), "UploadRejected", "quota exceeded"],
  [
    new Errors.ContractReverted({ errorName: "TOKEN_NOT_SUPPORTED", args: [] }),
    "ContractReverted",
    "TOKEN_NOT_SUPPORTED"
  ],
  [
    new Errors.ChainError({ shortMessage: "insufficient funds for gas", cause }),
    "ChainError",
    "insufficient funds for gas"
  ],
  [
    new Errors.OtherContractError({ errorName: "ERC20InsufficientBalance", args: [] }),
    "OtherContractError",
    "ERC20InsufficientBalance"
  ],
  [
    new Errors.UnsupportedToken({ network: "polygon", token: "dai" }),
    "UnsupportedToken",
    "Unsupported Token: dai on polygon"
  ],
  [
    new Errors.InvalidPaymentInput({ detail: "size must not be negative" }),
    "InvalidPaymentInput",
    "Invalid payment input: size must not be negative"
  ],
  [new Errors.SignerError({ operation: "signMessage", cause }), "SignerError", "Signer failed to signMessage"],
  [
    new Errors.KeyNodesUnavailable({
      cid: "Qm",
      needed: 3,
      received: 2,
      failures: [{ nodeId: 4, statusCode: 0, nodeMessage: "fetch Error" }]
    }),
    "KeyNodesUnavailable",
    "Only 2 of 3 key shards could be retrieved (node 4: fetch Error)"
  ],
  [
    new Errors.InvalidUploadInput({ reason: 'Invalid file name "..": a path segment is ".."' }),
    "InvalidUploadInput",
    'Invalid file name "..": a path segment is ".."'
  ],
  [
    new Errors.JournalFailed({
      operation: "write",
      location: "/home/u/.local/state/lighthouse-effect/pending-keys",
      cause: new Error("EACCES")
    }),
    "JournalFailed",
    "The key journal could not write /home/u/.local/state/lighthouse-effect/pending-keys"
  ],
  [
    new Errors.JournalEntrySealed({ id: "e1" }),
    "JournalEntrySealed",
    "The journal entry e1 is sealed for another signer"
  ],
  [
    new Errors.ConfigConflict(),
    "ConfigConflict",
    "A LighthouseConfig from LighthouseConfig.layer or LighthouseConfig.layerConfig meets an all-in-one layer " +
      "(layer or layerConfig of Lighthouse, LighthouseStorage or lighthouse-effect/node), which brings its own " +
      "configuration and would ignore it. Give the options to the all-in-one layer's layer, or the Configs to its " +
      "layerConfig; read the configuration back from the all-in-one layer, which provides LighthouseConfig."
  ],
  [
    new Errors.PendingKeysUnfinished({
      entries: [{ id: "e1", name: "a.txt", cid: "bafkqaaa", reason: "Error encrypting file: fetch Error (node 4)" }]
    }),
    "PendingKeysUnfinished",
    "1 earlier encrypted upload(s) of this account could not be finished: a.txt (bafkqaaa), Error encrypting file: fetch Error (node 4); run `lighthouse-effect repair` (Upload.repair)"
  ],
  [
    new Errors.UnreadableEntry({ path: "loop/self", reason: "symlink loop" }),
    "UnreadableEntry",
    "Unreadable entry in folder: loop/self (symlink loop)"
  ],
  [
    new Errors.FileStreamError({ fileName: "a.bin", detail: "EACCES: permission denied", cause }),
    "FileStreamError",
    "File stream error: EACCES: permission denied"
  ],
  [
    new Errors.UploadConnectionReset({ url: "https://upload.lighthouse.storage/api/v0/add", code: "EPIPE", cause }),
    "UploadConnectionReset",
    "The upload node reset the connection before its answer was read (EPIPE): an answer given while the upload was being sent, such as a refusal (401, 402 over the quota, 413), is lost with it"
  ],
  [
    new Errors.EncryptedUploadIncomplete({
      uploaded: [{ Name: "a.txt", Hash: "Qm", Size: "10" }],
      saved: [],
      failed: [{ name: "a.txt", cid: "Qm", reason: "node 2 down", keyShards: Redacted.make([]) }]
    }),
    "EncryptedUploadIncomplete",
    "Error encrypting file: node 2 down"
  ],
  [
    new Errors.CidMismatch({ path: "a.txt", expected: "bafyexpected", answered: "bafyanswered" }),
    "CidMismatch",
    'The node answered CID bafyanswered for "a.txt", but the bytes sent have CID bafyexpected'
  ],
  [
    new Errors.ContentVerificationFailed({ cid: "bafyroot", problem: "missing-block", detail: "the answer ended" }),
    "ContentVerificationFailed",
    "Content bafyroot failed verification (missing-block): the answer ended"
  ],
  [
    new Errors.VerificationUnsupported({ url: "u", detail: "status 501" }),
    "VerificationUnsupported",
    "The gateway cannot serve verifiable content: status 501"
  ],
  [
    new Errors.UnverifiableGateway({ url: "u", answer: "406", format: "car" }),
    "UnverifiableGateway",
    'The gateway cannot serve verifiable content (406 to ?format=car); pass verification: "if-supported" (CLI: --unverified) to accept unverified bytes'
  ],
  [
    new Errors.PublishCheckFailed({
      cid: "bafyroot",
      path: "/d/f.partial",
      detail: "the bytes on disk differ from the content at byte 0"
    }),
    "PublishCheckFailed",
    "The download of bafyroot in /d/f.partial does not match its CID and was not published: the bytes on disk differ from the content at byte 0"
  ],
  [
    new Errors.DownloadInProgress({ path: "/d/f", lock: "/d/f.lock", pid: 42 }),
    "DownloadInProgress",
    "Another download into /d/f is in progress (process 42 holds /d/f.lock)"
  ],
  [
    new Errors.NotARegularFile({ path: "/d/f.partial", found: "SymbolicLink" }),
    "NotARegularFile",
    "Refusing to download through /d/f.partial: it is a SymbolicLink, not a regular file"
  ],
  [
    new Errors.NotAFolder({ cid: "bafyfile", found: "file" }),
    "NotAFolder",
    "bafyfile is a file, not a folder: download it as a file"
  ],
  [
    new Errors.NotADirectoryTarget({ path: "/d/out", found: "File" }),
    "NotADirectoryTarget",
    "Refusing to download a folder into /d/out: it is a File, not a folder"
  ],
  [
    new Errors.FolderNotAFile({ address: "bafyroot/sub" }),
    "FolderNotAFile",
    "bafyroot/sub is a folder, not a file: download it into a directory, or list it"
  ],
  [
    new Errors.SyncIndexFailed({ operation: "write", location: "/s/sync/ab.json", cause: "EACCES" }),
    "SyncIndexFailed",
    "The sync index could not write /s/sync/ab.json"
  ],
  [
    new Errors.SyncSourceChanged({ path: "sub/a.txt" }),
    "SyncSourceChanged",
    '"sub/a.txt" changed while it was being synced; run the sync again'
  ],
  [
    new Errors.SyncInProgress({ directory: "/home/me/photos", lock: "/s/sync/ab.json.lock", pid: 42 }),
    "SyncInProgress",
    "Another sync of /home/me/photos is running (process 42 holds /s/sync/ab.json.lock); run this one once it has ended"
  ],
  [
    new Errors.InvalidArgument({ method: "files.fileInfo", detail: "argument 1 must be a CID (string)" }),
    "InvalidArgument",
    "Invalid argument to files.fileInfo: argument 1 must be a CID (string)"
  ],
  [new Errors.Aborted({}), "Aborted", "This operation was aborted"],
  [
    new Errors.X402Underpaid({ amount: "3906", required: "3907" }),
    "X402Underpaid",
    "x402 payment of 3906 is below the 3907 required"
  ],
  [
    new Errors.X402WrongAsset({ asked: "0xA", offered: "0xB" }),
    "X402WrongAsset",
    "x402 payment asked in 0xA, offered 0xB"
  ],
  [
    new Errors.X402AuthorizationExpired({ validBefore: "1700000000" }),
    "X402AuthorizationExpired",
    "x402 authorisation expired (valid before 1700000000)"
  ],
  [
    new Errors.X402AuthorizationReplayed({ nonce: "0x01" }),
    "X402AuthorizationReplayed",
    "x402 authorisation 0x01 was already used"
  ],
  [
    new Errors.X402InsufficientFunds({ payer: "0xA", required: "3907" }),
    "X402InsufficientFunds",
    "x402 payer 0xA holds less than 3907"
  ],
  [
    new Errors.X402PaymentRefused({ reason: "invalid_network" }),
    "X402PaymentRefused",
    "x402 payment refused: invalid_network"
  ],
  [
    new Errors.X402PriceAboveMaximum({ asked: "250000", maxAmount: "100000" }),
    "X402PriceAboveMaximum",
    "x402 payment of 250000 asked, above the 100000 allowed (raise maxAmount to pay it)"
  ],
  [
    new Errors.X402WrongNetwork({ asked: "eip155:1", expected: "base" }),
    "X402WrongNetwork",
    "x402 payment asked on eip155:1, expected base"
  ],
  [
    new Errors.X402WindowTooLong({ asked: "86400", maxTimeoutSeconds: "3600" }),
    "X402WindowTooLong",
    "x402 authorisation valid for 86400 s asked, above the 3600 s allowed"
  ],
  [
    new Errors.X402MalformedTerms({ field: "payTo", value: "nope", reason: "is not an address" }),
    "X402MalformedTerms",
    "x402 terms refused: payTo nope is not an address"
  ],
  [
    new Errors.AllSourcesFailed({
      cid: "bafyroot",
      sources: [
        { gateway: "https://a.example", reason: "HTTP 429" },
        { gateway: "https://b.example", reason: "stalled 30 s" }
      ]
    }),
    "AllSourcesFailed",
    "Every source of bafyroot failed: https://a.example (HTTP 429); https://b.example (stalled 30 s)"
  ]
]

/** Every error class the `Errors` module exports, by its export name. */
const errorClasses = Object.entries(Errors).flatMap(([name, value]) =>
  typeof value === "function" && value.prototype instanceof Error ? [name] : []
)

/** The rows of docs/errors.md's error table: the error names of the first column, the message column. */
const readmeErrorRows = () => {
  const guide = readFileSync(new URL("../../docs/errors.md", import.meta.url), "utf8")
  return guide
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => {
      const [names, message] = line.split("|").slice(1, 3) as [string, string]
      return { names: [...names.matchAll(/`(\w+)`/g)].map((m) => m[1]!), message }
    })
}

/** Whether `message` is one of the cell's backticked texts, where `{field}` and `…` stand for any text. */
const matchesCell = (message: string, cell: string) =>
  [...cell.matchAll(/`([^`]+)`/g)].some(([, template]) => {
    const pattern = template!
      .split(/\{\w+\}|…/)
      .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")
    return new RegExp(`^${pattern}$`).test(message)
  })

describe("Errors", () => {
  it("the catalogue above has an instance of every error class", () => {
    assert.deepStrictEqual([...new Set(catalogue.map(([, tag]) => tag))].sort(), [...errorClasses].sort())
    for (const [error, tag] of catalogue) assert.strictEqual(error.constructor.name, tag)
  })

  it("docs/errors.md's error table names every error class once, with its message", () => {
    const rows = readmeErrorRows()
    const named = rows.flatMap((row) => row.names)
    assert.deepStrictEqual([...named].sort(), [...errorClasses].sort())
    for (const [error, tag] of catalogue) {
      const row = rows.find((r) => r.names.includes(tag))!
      assert.isTrue(matchesCell(error.message, row.message), `${tag}: "${error.message}" is not in ${row.message}`)
    }
  })

  it.effect.each(catalogue)("$1: message to the letter", ([error, tag, message]) =>
    Effect.sync(() => {
      assert.strictEqual(error._tag, tag)
      assert.strictEqual(error.message, message)
      assert.strictEqual(String(error), `${tag}: ${message}`)
      assert.instanceOf(error, Error)
    })
  )

  it.effect("parameters land in the text", () =>
    Effect.sync(() => {
      assert.strictEqual(
        new Errors.ConditionValidationError({ detail: `"aggregator" is required` }).message,
        `Condition validation error: "aggregator" is required`
      )
      assert.strictEqual(
        new Errors.RequestFailed({ status: 404, url: "u" }).message,
        "Request failed with status code 404"
      )
      assert.strictEqual(new Errors.HttpStatusError({ status: 429, url: "u" }).message, "HTTP error! status 429")
      assert.strictEqual(
        new Errors.DuplicateFileName({ fileName: "dir/b c.txt" }).message,
        "Duplicate file name found: dir/b c.txt"
      )
      assert.strictEqual(
        new Errors.TickerPriceFailed({ detail: "Network error" }).message,
        "Failed to get ticker price: Network error"
      )
      assert.strictEqual(
        new Errors.NodeError({ nodeId: 1, statusCode: 500, body: { message: "boom" }, nodeMessage: "boom" }).message,
        "boom"
      )
    })
  )

  it.effect("errors are yieldable and caught by tag", () =>
    Effect.gen(function* () {
      const caught = yield* Effect.fail(new Errors.DuplicateFileName({ fileName: "a.txt" })).pipe(
        Effect.catchTag("DuplicateFileName", (e) => Effect.succeed(`caught ${e.name} ${e.fileName} ${e.message}`))
      )
      assert.strictEqual(caught, "caught DuplicateFileName a.txt Duplicate file name found: a.txt")
      const flipped = yield* Effect.flip(
        Effect.gen(function* () {
          return yield* new Errors.InvalidCid({ cid: "nope" })
        })
      )
      assert.strictEqual(flipped._tag, "InvalidCid")
      assert.strictEqual(flipped.cid, "nope")
    })
  )

  describe("isRetryable", () => {
    it.effect.each([
      [200, false],
      [400, false],
      [401, false],
      [404, false],
      [428, false],
      [429, true],
      [499, false],
      [500, true],
      [502, true],
      [503, true],
      [599, true]
    ] as const)("status %i → %s (RequestFailed and HttpStatusError)", ([status, retryable]) =>
      Effect.sync(() => {
        assert.strictEqual(new Errors.RequestFailed({ status, url: "u" }).isRetryable, retryable)
        assert.strictEqual(new Errors.HttpStatusError({ status, url: "u" }).isRetryable, retryable)
      })
    )

    it.effect("transport failures and time-outs are retryable", () =>
      Effect.sync(() => {
        assert.isTrue(new Errors.NetworkError({ url: "u", cause }).isRetryable)
        assert.isTrue(new Errors.RequestTimedOut({ url: "u", timeoutMillis: 8000 }).isRetryable)
      })
    )

    it.effect.each([
      [0, true],
      [404, true],
      [400, false],
      [401, false],
      [403, false],
      [500, false],
      [503, false]
    ] as const)("NodeError with statusCode %i → %s (the provider's `fetch` rule)", ([statusCode, retryable]) =>
      Effect.sync(() => {
        const error = new Errors.NodeError({ nodeId: 1, statusCode, body: null, nodeMessage: "could not fetch user" })
        assert.strictEqual(error.isRetryable, retryable)
      })
    )
  })

  it.effect("structured fields are kept and encode through the schema", () =>
    Effect.sync(() => {
      const error = new Errors.NodeError({
        nodeId: 2,
        statusCode: 500,
        body: { message: "boom", statusCode: 500 },
        nodeMessage: "boom",
        succeededNodes: [1]
      })
      assert.deepStrictEqual(error.succeededNodes, [1])
      assert.deepStrictEqual(error.body, { message: "boom", statusCode: 500 })
      const failed = new Errors.RequestFailed({ status: 503, url: "https://api.lighthouse.storage/x", body: "down" })
      assert.deepStrictEqual(Schema.encodeSync(Errors.RequestFailed)(failed), {
        _tag: "RequestFailed",
        status: 503,
        url: "https://api.lighthouse.storage/x",
        body: "down"
      })
      const reverted = Schema.decodeUnknownSync(Errors.ContractReverted)({
        _tag: "ContractReverted",
        errorName: "INSUFFICIENT_USER_BALANCE",
        args: [1n]
      })
      assert.strictEqual(reverted.message, "INSUFFICIENT_USER_BALANCE")
    })
  )

  it.effect("the contract error names are the contract's seven plus Ownable's two", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(Errors.ContractErrorName.literals, [
        "ENDOWMENT_TRANSFER_FAILED",
        "INSUFFICIENT_CONTRACT_BALANCE",
        "INSUFFICIENT_USER_BALANCE",
        "INVALID_ZERO_ADDRESS",
        "TOKEN_APPROVAL_FAILED",
        "TOKEN_NOT_SUPPORTED",
        "TOKEN_PAYMENT_FAILED",
        "OwnableUnauthorizedAccount",
        "OwnableInvalidOwner"
      ])
      assert.isFalse(Schema.is(Errors.ContractErrorName)("SOMETHING_ELSE"))
    })
  )
})
