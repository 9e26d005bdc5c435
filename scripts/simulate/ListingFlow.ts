/**
 * Flow `listing`: the account's uploads as one Effect `Stream` that follows the API's cursor page
 * by page (the mock serves a few records per page, so the walk spans several), the usage they add
 * up to, and the deletion of one record, which the next listing no longer shows.
 *
 * @since 0.1.0
 */
import { Effect, Stream } from "effect"
import { Files } from "lighthouse-effect"
import { Env, pageSize } from "./Environment.ts"
import type { Flow } from "./Flow.ts"
import * as Format from "./Format.ts"
import { need } from "./Session.ts"
import { check, step } from "./Step.ts"

export const listing: Flow = {
  name: "listing",
  title: "uploads listed across every page, usage, delete",
  needs: ["upload"],
  run: Effect.gen(function* () {
    const { server } = yield* Env
    const api = yield* Files.Files
    const apiKey = yield* need("apiKey")
    const file = yield* need("file")
    const text = yield* need("text")

    /** Every record, and how many page requests the stream made for them. */
    const listAll = Effect.gen(function* () {
      let pages = 0
      const count = ({ request }: { request: Request }) => {
        if (new URL(request.url).pathname === "/api/user/files_uploaded") pages++
      }
      server.events.on("request:start", count)
      const records = yield* Stream.runCollect(api.uploads(apiKey)).pipe(
        Effect.ensuring(Effect.sync(() => server.events.removeListener("request:start", count)))
      )
      return { records, pages }
    })

    const before = yield* step(
      "files.uploads",
      "list uploads (Stream, all pages)",
      Effect.tap(listAll, ({ records, pages }) =>
        Effect.all([
          check(
            records.some((r) => r.cid === file.cid) && records.some((r) => r.cid === text.cid),
            "the uploads of this run are not all listed"
          ),
          check(pages > 1, `one page only (${records.length} records, ${pageSize} per page)`)
        ])
      ),
      ({ records, pages }) =>
        `${records.length} uploads over ${pages} pages of ${pageSize} (${records.filter((r) => r.encryption).length} encrypted)`
    )

    yield* step(
      "files.usage",
      "usage after the uploads",
      api.usage(apiKey),
      (usage) => `used ${Format.bytes(usage.dataUsed)} of ${Format.bytes(usage.dataLimit)}`
    )

    const record = before.records.find((r) => r.cid === text.cid)!
    yield* step(
      "files.deleteFile",
      "delete the note",
      api.deleteFile(apiKey, record.id),
      (deleted) => `${record.fileName} (record ${record.id.slice(0, 8)}…): "${deleted.message}"`
    )

    yield* step(
      "files.uploads.afterDelete",
      "list again",
      Effect.tap(listAll, ({ records }) =>
        Effect.all([
          check(records.length === before.records.length - 1, `${records.length} records, expected one fewer`),
          check(!records.some((r) => r.id === record.id), "the deleted record is still listed")
        ])
      ),
      ({ records }) => `${records.length} uploads, ${record.fileName} gone`
    )
  })
}
