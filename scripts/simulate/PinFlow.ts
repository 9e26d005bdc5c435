/**
 * Flow `pin`: pinning content that is already on IPFS, a call the provider's SDK does not have.
 * The network is handed a block nobody uploaded (standing in for content elsewhere on IPFS); the
 * owner pins it under a name, finds its record in the uploads list and its bytes in usage, and a
 * pin of content nobody holds is refused with the typed `ContentUnreachable`.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { Files } from "lighthouse-effect"
import { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { sha256 } from "multiformats/hashes/sha2"
import { mock } from "./Environment.ts"
import type { Flow } from "./Flow.ts"
import * as Format from "./Format.ts"
import { need } from "./Session.ts"
import { check, refused, step } from "./Step.ts"

const rawCid = async (bytes: Uint8Array) => CID.create(1, raw.code, await sha256.digest(bytes))

const elsewhere = new TextEncoder().encode("Published by someone else, pinned here by CID.\n")

export const pin: Flow = {
  name: "pin",
  title: "pin a CID already on IPFS: its record, its usage, unreachable content refused",
  needs: ["account"],
  run: Effect.gen(function* () {
    const files = yield* Files.Files
    const apiKey = yield* need("apiKey")
    const before = (yield* files.usage(apiKey).pipe(Effect.orDie)).dataUsed

    const cid = yield* step(
      "mock.provideContent",
      "content appears on IPFS without an upload",
      mock(async (network) => {
        const cid = await rawCid(elsewhere)
        await network.state.content.put(cid, elsewhere)
        return cid.toString()
      }),
      (cid) => `${cid}, ${Format.bytes(elsewhere.length)}`
    )
    const pinned = yield* step(
      "files.pin",
      "pin it by CID, with a name",
      files.pin(apiKey, { cid, fileName: "pinned.txt" }),
      (record) => `${record.fileName}: record ${record.id}`
    )
    yield* step(
      "files.pin.listed",
      "the pin in the uploads list and in usage",
      Effect.gen(function* () {
        const page = yield* files.uploadsPage(apiKey)
        const usage = yield* files.usage(apiKey)
        yield* check(page.fileList[0]?.id === pinned.id, "the pin is not the newest record")
        yield* check(usage.dataUsed === before + elsewhere.length, `usage ${usage.dataUsed}, before ${before}`)
        return usage
      }),
      (usage) => `newest record; ${Format.bytes(usage.dataUsed)} used`
    )
    const missing = yield* Effect.promise(() => rawCid(new TextEncoder().encode("nobody holds this")))
    yield* refused(
      "files.pin.unreachable",
      "content nobody holds is not pinned",
      files.pin(apiKey, { cid: missing.toString() }),
      "ContentUnreachable"
    )
  })
}
