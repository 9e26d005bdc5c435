/**
 * The key journal (the library's `PendingKeys`) from the command line. `repair`: finishes the encrypted uploads the key journal holds for the wallet's account
 * (`Upload.repair`): saves the shards of stored files, drops the entries of uploads that never
 * completed, with `--delete-orphans` deletes files stored but never acknowledged. Each entry's
 * outcome on a line (`--json`: one value); exit 1 while an entry could not be finished.
 *
 * Also what `upload --encrypted` uses to say what it left unfinished: a journal that notes what
 * the upload writes and removes, the one line (or JSON value) printed when it is interrupted, and
 * the failure that names the CID, the nodes holding shards and the command that finishes it.
 *
 * @since 0.1.0
 */
import { homedir } from "node:os"
import { Command, Flag } from "effect/cli"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { type Errors, PendingKeys, Upload } from "lighthouse-effect"
import * as Credentials from "../Credentials.ts"
import * as Output from "../Output.ts"

/** The command that finishes what the journal holds. */
export const finishCommand = "lighthouse-effect repair"

/** How long Ctrl-C lets a started save of key shards run before the entry is left in the journal. */
export const saveGrace = Duration.seconds(15)

const Unfinished = Schema.Struct({
  name: Schema.String,
  /** Empty when the upload node never answered. */
  cid: Schema.String,
  /** The key nodes holding their shard, when known. */
  savedNodes: Schema.optionalKey(Schema.Array(Schema.Number)),
  reason: Schema.optionalKey(Schema.String)
})

/** Encrypted uploads left in the journal: the message names them and `repair`; `--json` lists them. */
export class UploadUnfinished extends Schema.TaggedError<UploadUnfinished>()("UploadUnfinished", {
  /** The library's failure message. */
  failure: Schema.String,
  pending: Schema.Array(Unfinished)
}) {
  override get message() {
    const described = this.pending.map(describe).join("; ")
    return `${this.failure}: ${described}; their key shards are kept in the journal: run \`${finishCommand}\` to finish`
  }
}

const describe = (entry: typeof Unfinished.Type) => {
  if (entry.cid === "") return `${entry.name} (the upload node had not answered)`
  const nodes = entry.savedNodes === undefined ? "" : `, shards saved on nodes [${entry.savedNodes.join(", ")}] of 5`
  return `${entry.name} is stored as ${entry.cid}${nodes}`
}

/** What `--json` adds to an error's `{ _tag, message }`: the unfinished uploads and how to finish them. */
export const jsonDetails = (error: unknown): Record<string, unknown> =>
  error instanceof UploadUnfinished ? { pending: error.pending, finish: finishCommand } : {}

const savedNodesOf = (cause: unknown): ReadonlyArray<number> | undefined => {
  const inner = typeof cause === "object" && cause !== null && "cause" in cause ? cause.cause : undefined
  return typeof inner === "object" && inner !== null && "succeededNodes" in inner && Array.isArray(inner.succeededNodes)
    ? (inner.succeededNodes as ReadonlyArray<number>)
    : typeof inner === "object" && inner !== null
      ? []
      : undefined
}

/** The library's failures that leave entries in the journal, as the CLI's `UploadUnfinished`. */
export const unfinishedOf = (error: Errors.EncryptedUploadIncomplete | Errors.PendingKeysUnfinished) =>
  new UploadUnfinished({
    failure: error.message,
    pending:
      error._tag === "PendingKeysUnfinished"
        ? error.entries.map((e) => ({ name: e.name, cid: e.cid, reason: e.reason }))
        : error.failed.map((f) => {
            const savedNodes = savedNodesOf(f.cause)
            return { name: f.name, cid: f.cid, reason: f.reason, ...(savedNodes === undefined ? {} : { savedNodes }) }
          })
  })

// =============================================================================
// The journal an upload writes through, noted
// =============================================================================

/** The state journal, with what this process wrote to it and removed from it noted. */
export const noting = Effect.gen(function* () {
  const journal = yield* PendingKeys.PendingKeys
  const written = new Map<string, PendingKeys.PendingEntry>()
  const removed = new Set<string>()
  const service = PendingKeys.PendingKeys.of({
    write: (entry) => Effect.tap(journal.write(entry), () => Effect.sync(() => written.set(entry.id, entry))),
    remove: (id) => Effect.tap(journal.remove(id), () => Effect.sync(() => removed.add(id))),
    list: journal.list
  })
  const pending = () => [...written.values()].filter((e) => !removed.has(e.id))
  const completed = () => [...written.values()].filter((e) => removed.has(e.id) && e.cid !== undefined)
  return { service, pending, completed }
}).pipe(Effect.provide(PendingKeys.layerState(homedir())))

type Noting = Effect.Success<typeof noting>

/**
 * What an interrupted encrypted upload says: the uploads it completed (within the grace), or the
 * entries it left in the journal, in one line (`--json`: one value).
 */
export const reportInterrupted = (noted: Noting) =>
  Effect.gen(function* () {
    const pending = noted.pending().map((e) => ({ name: e.name, cid: e.cid ?? "" }))
    const completed = noted.completed().map((e) => ({ cid: e.cid, name: e.name, size: e.size }))
    const value = { interrupted: true, completed, pending, ...(pending.length > 0 ? { finish: finishCommand } : {}) }
    const line =
      pending.length > 0
        ? `Interrupted: ${pending.map(describe).join("; ")}; its key shards are kept in the journal: run \`${finishCommand}\` to finish`
        : completed.length > 0
          ? `Interrupted after the upload completed: ${completed.map((c) => `${c.cid}  ${c.name}`).join("; ")}`
          : "Interrupted before anything was uploaded"
    if (yield* Output.Json) return yield* Output.stdout(Output.toJson(value))
    yield* Output.stderr(line)
  })

// =============================================================================
// repair
// =============================================================================

const outcomeLine = (o: Upload.RepairOutcome) => {
  const cid = o.cid === "" ? "-" : o.cid
  switch (o.outcome) {
    case "saved":
      return `saved    ${cid}  ${o.name}  (key shards on all 5 nodes)`
    case "dropped":
      return `dropped  ${cid}  ${o.name}  (the upload never completed: nothing stored)`
    case "deleted":
      return `deleted  ${cid}  ${o.name}  (stored but never acknowledged: deleted from the account)`
    case "failed":
      return `failed   ${cid}  ${o.name}  ${o.reason ?? ""}${o.savedNodes === undefined ? "" : ` (shards on nodes [${o.savedNodes.join(", ")}])`}`
  }
}

export const repair = Command.make(
  "repair",
  {
    deleteOrphans: Flag.Boolean("delete-orphans").pipe(
      Flag.withDescription("Delete files that were stored but never acknowledged, instead of saving their key shards"),
      Flag.withDefault(false)
    )
  },
  ({ deleteOrphans }) =>
    Effect.gen(function* () {
      const apiKey = yield* Credentials.apiKey
      const signer = yield* Credentials.signer
      const outcomes = yield* Upload.Upload.use((upload) => upload.repair({ apiKey, signer, deleteOrphans }))
      const failed = outcomes.filter((o) => o.outcome === "failed")
      if (failed.length > 0)
        return yield* new UploadUnfinished({
          failure: `${failed.length} of ${outcomes.length} pending encrypted upload(s) could not be finished`,
          pending: failed.map((o) => ({
            name: o.name,
            cid: o.cid,
            ...(o.savedNodes === undefined ? {} : { savedNodes: o.savedNodes }),
            ...(o.reason === undefined ? {} : { reason: o.reason })
          }))
        })
      yield* Output.result(
        { address: signer.address, outcomes },
        outcomes.length === 0
          ? [`Nothing to repair: no pending encrypted upload of ${signer.address}`]
          : outcomes.map(outcomeLine)
      )
    })
).pipe(
  Command.withDescription(
    "Finishes encrypted uploads a crash, Ctrl-C or a key-node outage left: saves their key shards, or drops what was never stored"
  ),
  Command.withExamples([
    { command: "lighthouse-effect repair --json", description: "Each pending upload's outcome as JSON" },
    {
      command: "lighthouse-effect repair --delete-orphans",
      description: "Delete stored files whose upload was never acknowledged instead of keeping them"
    }
  ])
)
