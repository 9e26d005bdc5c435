/**
 * Flow `walrus`: a file stored on Walrus instead of IPFS. The account gets a Walrus quota, uploads
 * a text with `storageType: "walrus"` (to the Walrus upload node), reads its blob id, downloads it
 * from the Walrus gateway, sees it in the Walrus quota and the uploads list filtered to Walrus, and
 * deletes it, which frees the quota.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { Download, Files, Upload } from "lighthouse-effect"
import { Env, mock } from "./Environment.ts"
import type { Flow } from "./Flow.ts"
import * as Format from "./Format.ts"
import { need } from "./Session.ts"
import { check, sameBytes, step } from "./Step.ts"

const walrusQuota = 10 * 1024 * 1024
const content = "Stored on Walrus, read back through its gateway.\n"

export const walrus: Flow = {
  name: "walrus",
  title: "Walrus storage: upload, blob id, gateway download, quota, delete",
  needs: ["account"],
  run: Effect.gen(function* () {
    const { wallets } = yield* Env
    const uploads = yield* Upload.Upload
    const files = yield* Files.Files
    const download = yield* Download.Download
    const apiKey = yield* need("apiKey")
    const { owner } = wallets
    const bytes = new TextEncoder().encode(content)

    yield* step(
      "mock.walrusQuota",
      "the account gets a Walrus quota",
      mock(async (network) => network.setQuota(owner.address, { walrusDataLimit: walrusQuota })),
      () => `${Format.bytes(walrusQuota)} on Walrus`
    )
    const entry = yield* step(
      "upload.text.walrus",
      "upload a text to Walrus",
      uploads.text(content, { apiKey, name: "walrus.txt", storageType: "walrus" }),
      (uploaded) => `${uploaded.Hash} ${uploaded.Name}: Walrus upload node`
    )
    yield* step(
      "files.walrusBlobs",
      "its Walrus blob id",
      Effect.tap(files.walrusBlobs(entry.Hash), (blobIds) => check(blobIds.length === 1, `${blobIds.length} blobs`)),
      (blobIds) => `blob ${blobIds[0]}`
    )
    yield* step(
      "download.walrus",
      "download from the Walrus gateway",
      Effect.tap(download.bytes(entry.Hash, { storageType: "walrus" }), (read) =>
        check(sameBytes(read, bytes), "the Walrus gateway served other bytes")
      ),
      (read) => `${Format.bytes(read.length)}, identical`
    )
    const record = yield* step(
      "files.uploads.walrus",
      "the uploads list, Walrus only, and the Walrus quota",
      Effect.gen(function* () {
        const page = yield* files.uploadsPage(apiKey, { fileType: "walrus" })
        const usage = yield* files.usage(apiKey)
        yield* check(page.fileList.length === 1, `${page.fileList.length} Walrus uploads, expected 1`)
        yield* check(usage.walrusDataUsed === bytes.length, `Walrus usage ${usage.walrusDataUsed}`)
        return { record: page.fileList[0]!, usage }
      }),
      ({ record, usage }) => `${record.fileName}; Walrus ${Format.bytes(usage.walrusDataUsed ?? 0)} used`
    )
    yield* step(
      "files.deleteFileWalrus",
      "delete the Walrus file",
      Effect.tap(files.deleteFileWalrus(apiKey, record.record.id), () =>
        Effect.flatMap(files.usage(apiKey), (usage) =>
          check(usage.walrusDataUsed === 0, `Walrus usage ${usage.walrusDataUsed} after the delete`)
        )
      ),
      (answer) => `${answer.message} Walrus quota back to 0 B used`
    )
  })
}
