/**
 * Encrypted uploads: every file gets its own master key, is encrypted as the transport pulls
 * it, and goes up in one request; then each file's 5 key shards are saved under its CID. Files
 * whose shards could not be saved are reported with their shards (redacted) so the save can be
 * retried: nothing is half-done silently.
 *
 * Across a crash too: before the first byte is sent each file's shards are written to the key
 * journal (`PendingKeys`: sealed for the signer when there is one), its CID is recorded once the
 * node answers, and its entry is removed only once all 5 nodes hold their shards. An upload first
 * finishes what the journal holds for its account (`Repair.ts`), and fails before sending
 * anything when it cannot.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { identity } from "effect/Function"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import type * as Auth from "../Auth.ts"
import { resolveOwner } from "../auth/Owner.ts"
import * as Cipher from "../crypto/FileCipher.ts"
import { deriveFileKey, OVERHEAD, randomBytes, SALT_LENGTH } from "../crypto/FileFormat.ts"
import * as Shamir from "../crypto/Shamir.ts"
import {
  AuthTokenMustBeJwt,
  CipherWorkerFailed,
  DuplicateFileName,
  EncryptedUploadIncomplete,
  FileStreamError,
  InvalidUploadInput
} from "../Errors.ts"
import type { Hosts } from "../internal/Hosts.ts"
import { reveal } from "../internal/http.ts"
import { releasedAfterNext } from "../internal/OwnedBytes.ts"
import type * as KeyShards from "../KeyShards.ts"
import type { PendingEntry } from "../pendingKeys/Models.ts"
import { parsePublicKey } from "../schema/Address.ts"
import type { KeyShard } from "../schema/KeyShard.ts"
import type { AddressOwner } from "../schema/Owner.ts"
import { sendAdd } from "./Checked.ts"
import * as Input from "./Input.ts"
import { type Journal, journalFor, SaveGrace, sealFor, toHex } from "./Journal.ts"
import type * as Multipart from "./Multipart.ts"
import type { EncryptedNamedOptions, EncryptedUploadFailure, EncryptionOptions } from "./Options.ts"
import { folderFiles, type PlanDeps, type Planned, planFile, readsFor } from "./Plan.ts"
import * as Response from "./Response.ts"

/** What an encrypted upload needs: a plain upload's, the key nodes to save the shards on, and sign-in for a signer. */
export interface EncryptedDeps extends PlanDeps {
  readonly hosts: Hosts
  readonly keyShards: KeyShards.Service
  readonly auth: Auth.Service
  /** The layer's journal; the caller's `PendingKeys`, when its context has one, is used instead. */
  readonly journal: Journal
  /** Finishes the account's pending entries before an upload (`Repair.finishPending`). */
  readonly finishPending: (options: Options, journal: Journal) => Effect.Effect<void, EncryptedUploadFailure>
}

/** A file to encrypt, under the name it is stored as. */
interface NamedSource {
  readonly source: Input.FileSource
  readonly name: string
}

/** One encrypted upload: its files, the caller's options and the type a single file has by default. */
interface EncryptedRequest {
  readonly files: ReadonlyArray<NamedSource>
  readonly options: Options
  readonly defaultMimeType: string | undefined
}

/** An upload under way, once its owner is known: what encrypting and saving its files take. */
interface Run {
  readonly deps: EncryptedDeps
  readonly journal: Journal
  readonly options: Options
  readonly owner: AddressOwner
  /** The owner's address, checked. */
  readonly address: string
}

/** A planned file, the shards of the key it is encrypted with, and its journal entry. */
interface Keyed {
  readonly planned: Planned
  readonly keyShards: ReadonlyArray<KeyShard>
  readonly entry: PendingEntry
}

/** A file whose shards were not saved, and why. */
interface Unsaved {
  readonly keyed: Keyed
  readonly cid: string
  readonly reason: string
  readonly cause?: unknown
}

export type Options = EncryptionOptions & { readonly mimeType?: string | undefined }

/** A JWT (as the key nodes issue it, `jwt:`-prefixed, or bare): three base64url segments, not a `0x` signature. */
export const isJwt = (token: string) => !token.startsWith("0x") && /^(jwt:)?[\w-]+\.[\w-]+\.[\w-]*$/.test(token)

const redactedShards = (keyed: Keyed) => Redacted.make(keyed.keyShards, { label: "KeyShards" })

/** Everything that can be refused is refused before a byte is sent. */
const refuseBadRequest = Effect.fnUntraced(function* (files: ReadonlyArray<NamedSource>, owner: AddressOwner) {
  if (files.length === 0) return yield* new InvalidUploadInput({ reason: "there are no files to upload" })
  const address = yield* parsePublicKey(owner.address)
  const seen = new Set<string>()
  for (const f of files) {
    if (seen.has(f.name)) return yield* new DuplicateFileName({ fileName: f.name })
    seen.add(f.name)
  }
  if (files.length > 1 && !isJwt(reveal(owner.token))) return yield* new AuthTokenMustBeJwt()
  return address
})

/** The files made ready to encrypt. The cipher reads each chunk as it is pulled, whatever the transport: reused reads are safe here. */
const planFiles = (deps: EncryptedDeps, files: ReadonlyArray<NamedSource>) =>
  Effect.forEach(files, (f) => planFile(deps.fs, f.source, f.name, deps.fileReads))

/** The web cipher's Workers failing mid-file (never on Node) fail that file's stream, as a read would. */
const cipherFailure =
  (fileName: string) =>
  <E>(error: E | CipherWorkerFailed): E | FileStreamError =>
    error instanceof CipherWorkerFailed ? new FileStreamError({ fileName, detail: error.message, cause: error }) : error

/** A key per file, journaled before anything is sent; the plaintext is encrypted as the transport pulls it. */
const encryptFiles = Effect.fnUntraced(function* (run: Run, files: ReadonlyArray<Planned>) {
  const { journal, options } = run
  const seal = yield* sealFor(options)
  const keyed: Array<Keyed> = []
  const parts: Array<Multipart.Part<FileStreamError>> = []
  // Where the transport is done with a chunk once it has pulled the one after next, the cipher's
  // output is freed then, not left to the collector (a GiB of it per GiB sent).
  const sent = (yield* readsFor(run.deps)) === "reused" ? releasedAfterNext : identity
  for (const planned of files) {
    const { masterKey, keyShards } = yield* Effect.orDie(Shamir.generate(3, 5))
    // The salt chosen here starts the ciphertext: what recognises the stored file if the node never answers.
    const fileKey = yield* deriveFileKey(masterKey, randomBytes(SALT_LENGTH))
    const id = toHex(randomBytes(16))
    const entry: PendingEntry = {
      version: 1,
      id,
      address: run.address.toLowerCase(),
      name: planned.name,
      size: planned.size ?? null,
      shareTo: options.shareTo ?? [],
      createdAt: yield* Clock.currentTimeMillis,
      salt: toHex(fileKey.salt),
      shards: yield* seal(id, keyShards)
    }
    yield* journal.write(entry)
    keyed.push({ planned, keyShards, entry })
    parts.push({
      name: planned.name,
      size: planned.size === undefined ? undefined : planned.size + OVERHEAD,
      content: planned.content.pipe(Cipher.encryptStream(fileKey), Stream.mapError(cipherFailure(planned.name)), sent)
    })
  }
  return { keyed, parts }
})

/** Saves one file's shards under its CID, then drops its journal entry; `Some` with the reason when they could not be. */
const saveShards = (
  run: Run,
  keyed: Keyed,
  entry: Response.UploadedEntry | undefined
): Effect.Effect<Option.Option<Unsaved>> => {
  if (entry === undefined) {
    return Effect.succeed(Option.some({ keyed, cid: "", reason: "the node's answer has no entry for it" }))
  }
  const { options } = run
  return run.deps.keyShards
    .save({
      cid: entry.Hash,
      address: run.address,
      token: run.owner.token,
      keyShards: keyed.keyShards,
      ...(options.shareTo === undefined ? {} : { shareTo: options.shareTo })
    })
    .pipe(
      Effect.andThen(
        // Every node holds its shard: a journal that fails to forget the entry only costs a repair that saves again.
        run.journal
          .remove(keyed.entry.id)
          .pipe(Effect.catch((error) => Effect.logWarning(`${error.message}: the next repair saves its shards again`)))
      ),
      Effect.as(Option.none()),
      Effect.catch((error) =>
        Effect.succeed(Option.some({ keyed, cid: entry.Hash, reason: error.message, cause: error }))
      )
    )
}

/** Records each answered CID in its file's journal entry, before any shard is saved. */
const recordCids = (journal: Journal, keyed: ReadonlyArray<Keyed>, entries: ReadonlyArray<Response.UploadedEntry>) => {
  const byName = new Map(entries.map((e) => [e.Name, e.Hash]))
  return Effect.forEach(
    keyed,
    (k) => {
      const cid = byName.get(k.planned.name)
      return cid === undefined ? Effect.void : journal.write({ ...k.entry, cid })
    },
    { discard: true }
  )
}

/**
 * Runs the save; interrupted, it still gets `SaveGrace` to finish (then it is interrupted, and the
 * journal keeps what it had not saved).
 */
const withGrace = <A, E>(save: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function* () {
      const grace = yield* SaveGrace
      const fiber = yield* Effect.forkDetach(save)
      return yield* restore(Fiber.join(fiber)).pipe(
        Effect.onInterrupt(() =>
          Fiber.await(fiber).pipe(Effect.timeoutOption(grace), Effect.andThen(Fiber.interrupt(fiber)), Effect.asVoid)
        )
      )
    })
  )

/** The error for files that are stored but whose shards are (partly) unsaved. */
const incomplete = (
  entries: ReadonlyArray<Response.UploadedEntry>,
  keyed: ReadonlyArray<Keyed>,
  failed: ReadonlyArray<Unsaved>
) => {
  const byName = new Map(entries.map((e) => [e.Name, e]))
  const failedNames = new Set(failed.map((f) => f.keyed.planned.name))
  return new EncryptedUploadIncomplete({
    uploaded: entries.map((e) => ({ Name: e.Name, Hash: e.Hash, Size: e.Size })),
    saved: keyed.flatMap((k) => {
      const entry = byName.get(k.planned.name)
      return entry === undefined || failedNames.has(k.planned.name) ? [] : [entry.Hash]
    }),
    failed: failed.map((f) => ({
      name: f.keyed.planned.name,
      cid: f.cid,
      reason: f.reason,
      cause: f.cause,
      keyShards: redactedShards(f.keyed)
    }))
  })
}

/** Signs in, refuses what it must, finishes the account's pending uploads; the upload under way. */
const start = Effect.fnUntraced(function* (deps: EncryptedDeps, request: EncryptedRequest) {
  const { options } = request
  const owner = yield* resolveOwner(deps.auth, options)
  const address = yield* refuseBadRequest(request.files, owner)
  // Before a byte is sent: a token the key nodes refuse would leave a stored file with no saved key.
  yield* deps.auth.checkToken(owner)
  const journal = yield* journalFor(deps.journal)
  yield* deps.finishPending(options, journal)
  return { deps, journal, options, owner, address } satisfies Run
})

const uploadEncrypted = Effect.fnUntraced(function* (
  deps: EncryptedDeps,
  request: EncryptedRequest
): Effect.fn.Return<ReadonlyArray<Response.UploadedEntry>, EncryptedUploadFailure> {
  const run = yield* start(deps, request)
  const { options } = run
  const planned = yield* planFiles(deps, request.files)
  const { keyed, parts } = yield* encryptFiles(run, planned)
  return yield* Effect.scoped(
    Effect.gen(function* () {
      const sent = yield* sendAdd(deps.hosts, {
        // Encrypted files are stored on IPFS only (`Options.ts`): no `storageType`.
        options,
        wrapWithDirectory: false,
        encryption: true,
        mimeType:
          planned.length === 1 ? (options.mimeType ?? request.defaultMimeType ?? planned[0]!.mimeType) : undefined,
        parts
      })
      const entries = yield* readEntries(sent.text, sent.url, keyed)
      // Shards are saved only under CIDs that address the ciphertext sent.
      yield* sent.check(entries)
      return yield* withGrace(
        recordCids(run.journal, keyed, entries).pipe(
          // Unrecorded, the CID is found again by the salt; the save goes on.
          Effect.catch((error) => Effect.logWarning(error.message)),
          Effect.andThen(saveAll(run, keyed, entries))
        )
      )
    })
  )
})

/** The node's entries; the files are stored now: an unreadable answer must not hide that their keys are unsaved. */
const readEntries = (text: string, target: string, keyed: ReadonlyArray<Keyed>) =>
  Response.entries(text, target).pipe(
    Effect.mapError((e) =>
      incomplete(
        [],
        keyed,
        keyed.map((k) => ({ keyed: k, cid: "", reason: `the node's answer could not be read: ${e.detail}`, cause: e }))
      )
    )
  )

/** Saves every file's shards; the entries in the files' order, or what could not be saved. */
const saveAll = Effect.fnUntraced(function* (
  run: Run,
  keyed: ReadonlyArray<Keyed>,
  entries: ReadonlyArray<Response.UploadedEntry>
) {
  const byName = new Map(entries.map((e) => [e.Name, e]))
  const outcomes = yield* Effect.forEach(keyed, (k) => saveShards(run, k, byName.get(k.planned.name)), {
    concurrency: 4
  })
  const failed = outcomes.flatMap((o) => (Option.isSome(o) ? [o.value] : []))
  if (failed.length > 0) return yield* incomplete(entries, keyed, failed)
  return keyed.map((k) => byName.get(k.planned.name)!)
})

export const encryptedFile = Effect.fn("Upload.encryptedFile")(function* (
  deps: EncryptedDeps,
  input: Input.FileInput,
  options: EncryptionOptions
) {
  const source = Input.toFileSource(input)
  const files = [{ source, name: Input.nameOf(source) }]
  const [entry] = yield* uploadEncrypted(deps, { files, options, defaultMimeType: undefined })
  return entry!
})

export const encryptedFiles = Effect.fn("Upload.encryptedFiles")(function* (
  deps: EncryptedDeps,
  input: Input.FolderInput | ReadonlyArray<Input.FileInput>,
  options: EncryptionOptions
) {
  const folderInput: Input.FolderInput = Array.isArray(input)
    ? Input.files(input as ReadonlyArray<Input.FileInput>)
    : (input as Input.FolderInput)
  const { files } = yield* folderFiles(deps.fs, folderInput)
  // Encrypted files are stored one by one, not as a folder: the path is flattened into the name.
  return yield* uploadEncrypted(deps, {
    files: files.map((f) => ({ source: f.source, name: f.relative.replaceAll("/", "-") })),
    options,
    defaultMimeType: undefined
  })
})

export const encryptedText = Effect.fn("Upload.encryptedText")(function* (
  deps: EncryptedDeps,
  content: string,
  options: EncryptedNamedOptions
) {
  const name = options.name ?? "text"
  const files = [{ source: Input.text(content, name), name }]
  const [entry] = yield* uploadEncrypted(deps, { files, options, defaultMimeType: "text/plain" })
  return entry!
})

export const encryptedBuffer = Effect.fn("Upload.encryptedBuffer")(function* (
  deps: EncryptedDeps,
  bytes: Uint8Array,
  options: EncryptedNamedOptions
) {
  const name = options.name ?? "blob"
  const files = [{ source: Input.bytes(bytes, name), name }]
  const [entry] = yield* uploadEncrypted(deps, { files, options, defaultMimeType: undefined })
  return entry!
})
