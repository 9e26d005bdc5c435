/**
 * The account's files on the API host, each command one call of the library's `Files` service:
 * what it knows of them (`info`, `uploads` (every page), `deals`, `proof`, `usage`, `delete`,
 * `walrus-blobs`), and keeping content that is already somewhere: `pin <cid>` (content on IPFS
 * joins the account's uploads) and `pdp request|status|wait <cid>` (a PDP storage deal of a stored
 * file; `pdp wait` is `awaitPdpDeal`, so the polling and the time-out are the library's).
 *
 * @since 0.1.0
 */

import { Argument, Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { Download, Errors, Files } from "lighthouse-effect"
import * as Credentials from "../Credentials.ts"
import * as Output from "../Output.ts"
import { addressOf } from "./Download.ts"

const cid = Argument.String("cid").pipe(Argument.withDescription("The content's CID"))

/** Whole seconds above 0. */
const Seconds = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))

/**
 * What the folder at `cid` says of its entry at `path` (its own name as `path`), from the verified
 * listing of the folder holding it; `path-not-found` when there is none.
 */
const entryAt = (cid: string, path: string) =>
  Effect.gen(function* () {
    const segments = path.split("/")
    const name = segments.pop()!
    const parent = segments.length === 0 ? undefined : segments.join("/")
    const siblings = yield* Download.Download.use((download) => download.list(cid, { path: parent }))
    const entry = siblings.find((candidate) => candidate.path === name)
    if (entry !== undefined) return entry
    return yield* new Errors.ContentVerificationFailed({
      cid,
      problem: "path-not-found",
      detail: `no "${path}" in ${cid}`
    })
  })

/**
 * The entries of the folder at `given` (`CID`, `CID/path` or `/ipfs/CID/path`), its own or with
 * `recursive` its whole tree, paths relative to it, from the library's verified listing; a file
 * at `given` is listed alone.
 */
const entriesAt = (given: string, recursive: boolean) =>
  Effect.gen(function* () {
    const { cid, path } = addressOf(given)
    const download = yield* Download.Download
    if (path === undefined) return yield* download.list(cid, { recursive })
    const listed = yield* Effect.result(download.list(cid, { recursive, path }))
    if (listed._tag === "Success") return listed.success
    if (listed.failure._tag !== "NotAFolder") return yield* Effect.fail(listed.failure)
    return [yield* entryAt(cid, path)]
  })

const lineOf = (entry: Download.TreeEntry) =>
  entry.type === "refused"
    ? `refused  -  -  ${JSON.stringify(entry.path)}  (${entry.reason})`
    : `${entry.type}  ${entry.type === "file" ? entry.size : "-"}  ${entry.cid}  ${entry.path}`

export const ls = Command.make(
  "ls",
  {
    cid,
    recursive: Flag.Boolean("recursive").pipe(
      Flag.withAlias("r"),
      Flag.withDescription("List the whole tree"),
      Flag.withDefault(false)
    )
  },
  ({ cid, recursive }) =>
    Effect.gen(function* () {
      const entries = yield* entriesAt(cid, recursive)
      yield* Output.result(entries, entries.map(lineOf))
    })
).pipe(
  Command.withDescription(
    "Lists a folder (CID, CID/path or /ipfs/CID/path): type, size, CID, name; every block checked"
  )
)

export const info = Command.make("info", { cid }, ({ cid: given }) =>
  Effect.gen(function* () {
    const { cid, path } = addressOf(given)
    if (path !== undefined) {
      // An entry inside a folder has no record of its own on the API host: what the folder says of it.
      const entry = yield* entryAt(cid, path)
      return yield* Output.result(entry, [lineOf(entry)])
    }
    const info = yield* Files.Files.use((files) => files.fileInfo(cid))
    yield* Output.result(info, [
      `${info.cid}  ${info.fileName}  ${info.fileSizeInBytes} bytes  ${info.mimeType ?? "-"}${info.encryption ? "  encrypted" : ""}`
    ])
  })
).pipe(Command.withDescription("A file's record: name, size, type, whether it is encrypted"))

export const uploads = Command.make("uploads", {}, () =>
  Effect.gen(function* () {
    const apiKey = yield* Credentials.apiKey
    const files = yield* Files.Files.use((files) => Stream.runCollect(files.uploads(apiKey)))
    yield* Output.result(
      files,
      files.map(
        (f) => `${f.cid}  ${f.fileSizeInBytes}  ${f.encryption ? "encrypted" : "plain"}  ${f.id}  ${f.fileName}`
      )
    )
  })
).pipe(
  Command.withAlias("get-uploads"),
  Command.withDescription("Every upload of the account, newest first (every page, not just the first)")
)

export const deals = Command.make("deals", { cid }, ({ cid }) =>
  Effect.gen(function* () {
    const deals = yield* Files.Files.use((files) => files.dealStatus(cid))
    yield* Output.result(
      deals,
      deals.length === 0 ? ["no deal yet"] : deals.map((d) => `${d.Provider}  deal ${d.DealID}  ${d.dealStatus ?? ""}`)
    )
  })
).pipe(Command.withAlias("deal-status"), Command.withDescription("The Filecoin deals of a CID"))

export const proof = Command.make("proof", { cid }, ({ cid }) =>
  Effect.gen(function* () {
    const proof = yield* Files.Files.use((files) => files.proof(cid))
    yield* Output.result(proof, [
      `piece ${proof.pieceCID}`,
      ...proof.dealInfo.map((d) => `${d.storageProvider}  deal ${d.dealId}`)
    ])
  })
).pipe(Command.withDescription("The PoDSI (proof of data segment inclusion) of a CID's deals"))

export const usage = Command.make("usage", {}, () =>
  Effect.gen(function* () {
    const apiKey = yield* Credentials.apiKey
    const usage = yield* Files.Files.use((files) => files.usage(apiKey))
    yield* Output.result(usage, [
      `used ${usage.dataUsed} of ${usage.dataLimit} bytes (${usage.dataLimit - usage.dataUsed} left)`
    ])
  })
).pipe(Command.withAlias("balance"), Command.withDescription("The account's data usage and limit"))

export const remove = Command.make(
  "delete",
  {
    id: Argument.String("id").pipe(Argument.withDescription("The upload's id (see `uploads`)"))
  },
  ({ id }) =>
    Effect.gen(function* () {
      const apiKey = yield* Credentials.apiKey
      const deleted = yield* Files.Files.use((files) => files.deleteFile(apiKey, id))
      yield* Output.result(deleted, [`deleted ${id}`])
    })
).pipe(Command.withAlias("delete-file"), Command.withDescription("Deletes an upload record by its id"))

export const walrusBlobs = Command.make("walrus-blobs", { cid }, ({ cid }) =>
  Effect.gen(function* () {
    const blobs = yield* Files.Files.use((files) => files.walrusBlobs(cid))
    yield* Output.result(blobs, blobs.map(String))
  })
).pipe(Command.withDescription("The Walrus blob ids of a CID stored on Walrus"))

export const pin = Command.make(
  "pin",
  {
    cid,
    name: Flag.String("name").pipe(Flag.withDescription("The record's file name (default: the CID)"), Flag.optional)
  },
  ({ cid, name }) =>
    Effect.gen(function* () {
      const apiKey = yield* Credentials.apiKey
      const input = Option.match(name, { onNone: () => ({ cid }), onSome: (fileName) => ({ cid, fileName }) })
      const record = yield* Files.Files.use((files) => files.pin(apiKey, input))
      yield* Output.result(record, [`pinned ${record.cid} as ${record.fileName}`])
    })
).pipe(Command.withDescription("Pins content already on IPFS to the account (it joins `uploads` and the quota)"))

const request = Command.make("request", { cid }, ({ cid }) =>
  Effect.gen(function* () {
    const apiKey = yield* Credentials.apiKey
    yield* Files.Files.use((files) => files.requestPdpDeal(apiKey, cid))
    yield* Output.result({ cid, requested: true }, [`PDP deal requested for ${cid}`])
  })
).pipe(Command.withDescription("Asks for a PDP deal of a stored file (100 MiB at most)"))

const status = Command.make("status", { cid }, ({ cid }) =>
  Effect.gen(function* () {
    const deals = yield* Files.Files.use((files) => files.pdpDealStatus(cid))
    yield* Output.result(
      deals,
      deals.length === 0 ? [`no PDP deal for ${cid} yet`] : deals.map((d) => `${d.id}  ${d.dealStatus}  ${d.updatedAt}`)
    )
  })
).pipe(Command.withDescription("The PDP deals of a CID"))

const wait = Command.make(
  "wait",
  {
    cid,
    interval: Flag.Int("interval").pipe(
      Flag.withSchema(Seconds),
      Flag.withDescription("Seconds between two reads"),
      Flag.withDefault(60)
    ),
    timeout: Flag.Int("timeout").pipe(
      Flag.withSchema(Seconds),
      Flag.withDescription("Seconds to wait in all"),
      Flag.withDefault(2400)
    )
  },
  ({ cid, interval, timeout }) =>
    Effect.gen(function* () {
      const deal = yield* Files.Files.use((files) =>
        files.awaitPdpDeal(cid, { interval: `${interval} seconds`, timeout: `${timeout} seconds` })
      )
      yield* Output.result(deal, [`${deal.id}  ${deal.dealStatus}  ${JSON.stringify(deal.transactionDetails)}`])
    })
).pipe(Command.withDescription("Waits until a PDP deal of the CID is completed; exit 1 on the time-out"))

export const pdp = Command.make("pdp").pipe(
  Command.withDescription("PDP storage deals: request, status, wait"),
  Command.withSubcommands([request, status, wait])
)
