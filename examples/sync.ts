// Keep a folder stored: `Upload.sync` sends only the files that are new or changed since the last
// snapshot (one CAR of their blocks), keeps the folder's index in a state directory, and lists the
// snapshots it stored. Run beside `npm run serve` with the variables it prints (unset: Lighthouse's
// own hosts).
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { Auth, Download, Signer, Upload } from "lighthouse-effect"
import * as LighthouseNode from "lighthouse-effect/node"
import { generatePrivateKey } from "viem/accounts"

// A folder to keep stored, and where its index lives (a CLI would use ~/.local/state).
const scratch = await mkdtemp(join(tmpdir(), "sync-example-"))
const notes = join(scratch, "notes")
const stateDirectory = join(scratch, "state")
await mkdir(notes)
await writeFile(join(notes, "monday.txt"), "rain\n")
await writeFile(join(notes, "tuesday.txt"), "sun\n")

const program = Effect.gen(function* () {
  const signer = yield* Signer.makeFromPrivateKey(process.env.PRIVATE_KEY ?? generatePrivateKey())
  const apiKey = yield* Auth.Auth.use((auth) => auth.createApiKey(signer))
  const upload = yield* Upload.Upload

  const first = yield* upload.sync(notes, { apiKey, stateDirectory })
  console.log(first.sent.length, "files sent") // "2 files sent"

  // Nothing changed: the same snapshot, nothing sent.
  const again = yield* upload.sync(notes, { apiKey, stateDirectory })
  console.log(again.unchanged, again.cid === first.cid) // "true true"

  // One file changed, one removed, one added: only the changed and the added are sent.
  yield* Effect.promise(async () => {
    await writeFile(join(notes, "tuesday.txt"), "sun, then wind\n")
    await rm(join(notes, "monday.txt"))
    await writeFile(join(notes, "wednesday.txt"), "fog\n")
  })
  const next = yield* upload.sync(notes, { apiKey, stateDirectory })
  console.log([...next.sent].sort().join(" ")) // "tuesday.txt wednesday.txt"
  console.log(next.removed.join(" ")) // "monday.txt"

  // The new snapshot is a whole folder: any of its files, read back by path, verified.
  const tuesday = yield* Download.Download.use((download) => download.bytes(next.cid, { path: "tuesday.txt" }))
  console.log(new TextDecoder().decode(tuesday).trim()) // "sun, then wind"

  // Every run is a snapshot in the history, the unchanged one too.
  const history = yield* upload.syncHistory(notes, { stateDirectory })
  console.log(history.length, "snapshots") // "3 snapshots"
})

await Effect.runPromise(program.pipe(Effect.provide(LighthouseNode.layerConfig())))
await rm(scratch, { recursive: true, force: true })
