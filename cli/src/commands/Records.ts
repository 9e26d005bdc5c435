/**
 * What the API host knows about the account's files: `info`, `uploads` (every page), `deals`,
 * `proof`, `usage`, `delete`, `walrus-blobs`. Each is one call of the library's `Files` service.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { Argument, Command } from "effect/cli"
import { Files } from "lighthouse-effect"
import { withLibrary } from "../Client.ts"
import * as Credentials from "../Credentials.ts"
import * as Output from "../Output.ts"

const cid = Argument.String("cid").pipe(Argument.withDescription("The content's CID"))

export const info = Command.make("info", { cid }, ({ cid }) =>
  Effect.gen(function* () {
    const info = yield* Files.Files.use((files) => files.fileInfo(cid))
    yield* Output.result(info, [
      `${info.cid}  ${info.fileName}  ${info.fileSizeInBytes} bytes  ${info.mimeType ?? "-"}${info.encryption ? "  encrypted" : ""}`
    ])
  }).pipe(withLibrary)
).pipe(Command.withDescription("A file's record: name, size, type, whether it is encrypted"))

export const uploads = Command.make("uploads", { apiKeyFile: Credentials.apiKeyFile }, ({ apiKeyFile }) =>
  Effect.gen(function* () {
    const apiKey = yield* Credentials.apiKey(apiKeyFile)
    const files = yield* Files.Files.use((files) => Stream.runCollect(files.uploads(apiKey)))
    yield* Output.result(
      files,
      files.map(
        (f) => `${f.cid}  ${f.fileSizeInBytes}  ${f.encryption ? "encrypted" : "plain"}  ${f.id}  ${f.fileName}`
      )
    )
  }).pipe(withLibrary)
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
  }).pipe(withLibrary)
).pipe(Command.withAlias("deal-status"), Command.withDescription("The Filecoin deals of a CID"))

export const proof = Command.make("proof", { cid }, ({ cid }) =>
  Effect.gen(function* () {
    const proof = yield* Files.Files.use((files) => files.proof(cid))
    yield* Output.result(proof, [
      `piece ${proof.pieceCID}`,
      ...proof.dealInfo.map((d) => `${d.storageProvider}  deal ${d.dealId}`)
    ])
  }).pipe(withLibrary)
).pipe(Command.withDescription("The PoDSI (proof of data segment inclusion) of a CID's deals"))

export const usage = Command.make("usage", { apiKeyFile: Credentials.apiKeyFile }, ({ apiKeyFile }) =>
  Effect.gen(function* () {
    const apiKey = yield* Credentials.apiKey(apiKeyFile)
    const usage = yield* Files.Files.use((files) => files.usage(apiKey))
    yield* Output.result(usage, [
      `used ${usage.dataUsed} of ${usage.dataLimit} bytes (${usage.dataLimit - usage.dataUsed} left)`
    ])
  }).pipe(withLibrary)
).pipe(Command.withAlias("balance"), Command.withDescription("The account's data usage and limit"))

export const remove = Command.make(
  "delete",
  {
    apiKeyFile: Credentials.apiKeyFile,
    id: Argument.String("id").pipe(Argument.withDescription("The upload's id (see `uploads`)"))
  },
  ({ apiKeyFile, id }) =>
    Effect.gen(function* () {
      const apiKey = yield* Credentials.apiKey(apiKeyFile)
      const deleted = yield* Files.Files.use((files) => files.deleteFile(apiKey, id))
      yield* Output.result(deleted, [`deleted ${id}`])
    }).pipe(withLibrary)
).pipe(Command.withAlias("delete-file"), Command.withDescription("Deletes an upload record by its id"))

export const walrusBlobs = Command.make("walrus-blobs", { cid }, ({ cid }) =>
  Effect.gen(function* () {
    const blobs = yield* Files.Files.use((files) => files.walrusBlobs(cid))
    yield* Output.result(blobs, blobs.map(String))
  }).pipe(withLibrary)
).pipe(Command.withDescription("The Walrus blob ids of a CID stored on Walrus"))
