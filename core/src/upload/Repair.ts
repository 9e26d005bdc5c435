/**
 * Finishing what the key journal holds for an account (`Upload.repair`). For each entry:
 *
 * - the CID is known (the upload node answered): the shards are saved under it, again on nodes
 *   that already hold theirs (the owner's save replaces its own shard: idempotent), then the entry
 *   is removed: `saved`;
 * - the node never answered: the account's uploads list is searched for an encrypted file of the
 *   entry's name, recorded since the entry was written, whose first 16 bytes (read from the
 *   gateway) are the entry's salt. None: the upload never completed, the entry is removed:
 *   `dropped`. Found: its CID is recorded and the shards saved (`saved`), or with `deleteOrphans`
 *   the file is deleted from the account (`deleted`);
 * - anything that fails leaves the entry as it was: `failed`, with the reason and, for a save,
 *   the nodes that hold their shard.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { resolveOwner } from "../auth/Owner.ts"
import { PendingKeysUnfinished } from "../Errors.ts"
import type { Hosts } from "../internal/Hosts.ts"
import { reveal } from "../internal/http.ts"
import type { PendingEntry } from "../pendingKeys/Models.ts"
import { open } from "../pendingKeys/Seal.ts"
import { pathOf, Routes } from "../routes/Routes.ts"
import { parsePublicKey } from "../schema/Address.ts"
import type { Credential } from "../schema/Credential.ts"
import type { KeyShard } from "../schema/KeyShard.ts"
import type { AddressOwner } from "../schema/Owner.ts"
import { type EncryptedDeps, isJwt, type Options } from "./Encrypted.ts"
import { type Journal, journalFor, openingKey, toHex } from "./Journal.ts"
import type { RepairOptions } from "./Options.ts"

/** An upload record as the uploads list gives it (the fields repair reads). */
export interface StoredRecord {
  readonly id: string
  readonly cid: string
  readonly fileName: string
  readonly encryption: boolean
  readonly createdAt: number
}

/** What repair needs beyond an encrypted upload's: the account's uploads, and deleting one. */
export interface RepairDeps extends EncryptedDeps {
  readonly uploads: (apiKey: Credential) => Stream.Stream<StoredRecord, unknown>
  readonly deleteFile: (apiKey: Credential, id: string) => Effect.Effect<unknown, unknown>
}

/** What became of one journal entry. */
export interface RepairOutcome {
  readonly id: string
  readonly name: string
  /** Empty when the file was never stored. */
  readonly cid: string
  readonly outcome: "saved" | "dropped" | "deleted" | "failed"
  /** Why it failed (`failed` only). */
  readonly reason?: string
  /** The nodes that hold their shard after a failed save. */
  readonly savedNodes?: ReadonlyArray<number>
}

/** How far apart the client's and the API's clocks may be when matching an upload record to an entry. */
const CLOCK_SKEW_MS = 10 * 60 * 1000

const messageOf = (error: unknown) =>
  typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error)

/** The nodes holding a shard after a failed save: the `succeededNodes` its cause carries. */
const savedNodesOf = (error: unknown): ReadonlyArray<number> => {
  const cause = typeof error === "object" && error !== null && "cause" in error ? error.cause : undefined
  return typeof cause === "object" && cause !== null && "succeededNodes" in cause && Array.isArray(cause.succeededNodes)
    ? (cause.succeededNodes as ReadonlyArray<number>)
    : []
}

interface Run {
  readonly deps: RepairDeps
  readonly journal: Journal
  readonly options: RepairOptions
  readonly owner: AddressOwner
  readonly address: string
  readonly key: CryptoKey | undefined
  /** The account's uploads, read once, on first need. */
  readonly records: Effect.Effect<ReadonlyArray<StoredRecord>, unknown>
  /** CIDs other entries already claim. */
  readonly claimed: ReadonlySet<string>
}

const failed = (
  entry: PendingEntry,
  cid: string,
  error: unknown,
  savedNodes?: ReadonlyArray<number>
): RepairOutcome => ({
  id: entry.id,
  name: entry.name,
  cid,
  outcome: "failed",
  reason: messageOf(error),
  ...(savedNodes === undefined ? {} : { savedNodes })
})

/** Saves the entry's shards under `cid`, then forgets the entry. */
const saveEntry = (run: Run, entry: PendingEntry, cid: string, shards: ReadonlyArray<KeyShard>) =>
  run.deps.keyShards
    .save({ cid, address: run.address, token: run.owner.token, keyShards: shards, shareTo: entry.shareTo })
    .pipe(
      Effect.andThen(run.journal.remove(entry.id)),
      Effect.as<RepairOutcome>({ id: entry.id, name: entry.name, cid, outcome: "saved" }),
      Effect.catch((error) => Effect.succeed(failed(entry, cid, error, savedNodesOf(error))))
    )

/** The first 16 bytes the gateway serves for `cid`, as hex. */
const leadingBytes = (hosts: Hosts, cid: string) =>
  hosts.gateway.execute(HttpClientRequest.post(pathOf(Routes.gateway.cat, { cid: `${cid}` }))).pipe(
    Effect.flatMap((response) => {
      let seen = 0
      return response.stream.pipe(
        Stream.takeUntil((chunk) => {
          seen += chunk.length
          return seen >= 16
        }),
        Stream.runCollect
      )
    }),
    Effect.map((chunks) => {
      const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
      let at = 0
      for (const chunk of chunks) {
        bytes.set(chunk, at)
        at += chunk.length
      }
      return toHex(bytes.subarray(0, 16))
    })
  )

/** The stored record of an entry the node never acknowledged: its name, its time, its salt. */
const findStored = Effect.fnUntraced(function* (run: Run, entry: PendingEntry) {
  const candidates = (yield* run.records).filter(
    (r) =>
      r.encryption &&
      r.fileName === entry.name &&
      r.createdAt >= entry.createdAt - CLOCK_SKEW_MS &&
      !run.claimed.has(r.cid)
  )
  for (const record of candidates) {
    if ((yield* leadingBytes(run.deps.hosts, record.cid)) === entry.salt) return Option.some(record)
  }
  return Option.none<StoredRecord>()
})

/** An entry whose upload the node never acknowledged: dropped, saved under the CID found, or deleted. */
const settleUnanswered = (run: Run, entry: PendingEntry, shards: ReadonlyArray<KeyShard>) =>
  Effect.gen(function* () {
    const found = yield* findStored(run, entry)
    if (Option.isNone(found)) {
      yield* run.journal.remove(entry.id)
      return { id: entry.id, name: entry.name, cid: "", outcome: "dropped" } satisfies RepairOutcome
    }
    const record = found.value
    if (run.options.deleteOrphans === true) {
      yield* run.deps.deleteFile(run.options.apiKey, record.id)
      yield* run.journal.remove(entry.id)
      return { id: entry.id, name: entry.name, cid: record.cid, outcome: "deleted" } satisfies RepairOutcome
    }
    yield* run.journal.write({ ...entry, cid: record.cid })
    return yield* saveEntry(run, entry, record.cid, shards)
  }).pipe(Effect.catch((error) => Effect.succeed(failed(entry, "", error))))

const repairEntry = (run: Run, entry: PendingEntry): Effect.Effect<RepairOutcome> =>
  open(run.key, entry.id, entry.shards).pipe(
    Effect.matchEffect({
      onFailure: (error) => Effect.succeed(failed(entry, entry.cid ?? "", error)),
      onSuccess: (shards) =>
        entry.cid === undefined ? settleUnanswered(run, entry, shards) : saveEntry(run, entry, entry.cid, shards)
    })
  )

/** Repairs every entry of the options' owner, oldest first, one at a time; each entry's outcome. */
export const repair = Effect.fn("Upload.repair")(function* (deps: RepairDeps, options: RepairOptions) {
  const journal = yield* journalFor(deps.journal)
  return yield* repairWith(deps, journal, options)
})

const repairWith = Effect.fnUntraced(function* (deps: RepairDeps, journal: Journal, options: RepairOptions) {
  const owner = yield* resolveOwner(deps.auth, options)
  const address = yield* parsePublicKey(owner.address)
  const entries = yield* journal.list(address)
  if (entries.length === 0) return []
  const run: Run = {
    deps,
    journal,
    options,
    owner,
    address,
    key: yield* openingKey(options.signer),
    records: yield* Effect.cached(Stream.runCollect(deps.uploads(options.apiKey))),
    claimed: new Set(entries.flatMap((e) => (e.cid === undefined ? [] : [e.cid])))
  }
  return yield* Effect.forEach(entries, (entry) => repairEntry(run, entry))
})

/**
 * Before an encrypted upload: repairs the account's entries, and fails with `PendingKeysUnfinished`
 * (nothing sent) when one cannot be finished. A single-use signature cannot sign for earlier
 * uploads and this one: with entries pending it needs a JWT.
 */
export const finishPending = Effect.fnUntraced(function* (deps: RepairDeps, options: Options, journal: Journal) {
  const owner = yield* resolveOwner(deps.auth, options)
  const address = yield* parsePublicKey(owner.address)
  const pending = yield* journal.list(address)
  if (pending.length === 0) return
  if (!isJwt(reveal(owner.token)))
    return yield* new PendingKeysUnfinished({
      entries: pending.map((e) => ({
        id: e.id,
        name: e.name,
        cid: e.cid ?? "",
        reason: "a single-use signature cannot also finish earlier uploads: give a JWT (or a signer)"
      }))
    })
  const outcomes = yield* repairWith(deps, journal, { ...options, deleteOrphans: false } as RepairOptions)
  const unfinished = outcomes.filter((o) => o.outcome === "failed")
  if (unfinished.length > 0)
    return yield* new PendingKeysUnfinished({
      entries: unfinished.map((o) => ({ id: o.id, name: o.name, cid: o.cid, reason: o.reason ?? "" }))
    })
})
