// An upload from a Node worker thread (`node:worker_threads`), so that hashing and sending a large
// file keep the main thread free: the worker uploads and reads the file back verified, then hands
// the CID to the main thread. One file, both sides: it starts itself as the worker. Every thread
// has its own services (a layer is not shared across threads); each reads the same LIGHTHOUSE_*
// variables. Run beside `npm run serve` with the variables it prints (unset: Lighthouse's own hosts).
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads"
import { Effect } from "effect"
import { Auth, Download, Signer, Upload } from "lighthouse-effect"
import * as LighthouseNode from "lighthouse-effect/node"
import { generatePrivateKey } from "viem/accounts"

/** What the main thread asks for, and what the worker answers. */
interface Job {
  readonly name: string
  readonly text: string
  readonly privateKey: `0x${string}`
}
interface Done {
  readonly cid: string
  readonly verified: boolean
}

/** The worker's side: upload the text as a file, read it back verified against its CID. */
const uploadInWorker = (job: Job) =>
  Effect.gen(function* () {
    const signer = yield* Signer.makeFromPrivateKey(job.privateKey)
    const apiKey = yield* Auth.Auth.use((auth) => auth.createApiKey(signer))
    const entry = yield* Upload.Upload.use((upload) => upload.text(job.text, { apiKey, name: job.name }))
    const back = yield* Download.Download.use((download) => download.bytes(entry.Hash))
    return { cid: entry.Hash, verified: new TextDecoder().decode(back) === job.text } satisfies Done
  }).pipe(Effect.provide(LighthouseNode.layerConfig()))

if (isMainThread) {
  const job: Job = {
    name: "from-a-worker.txt",
    text: "uploaded off the main thread\n",
    privateKey: (process.env.PRIVATE_KEY as `0x${string}` | undefined) ?? generatePrivateKey()
  }
  const worker = new Worker(new URL(import.meta.url), { workerData: job })
  const done = await new Promise<Done>((resolve, reject) => {
    worker.once("message", resolve)
    worker.once("error", reject)
    worker.once("exit", (code) => reject(new Error(`the worker exited (${code}) without an answer`)))
  })
  console.log(done.cid.startsWith("baf")) // true
  console.log(done.verified ? "read back verified" : "differs") // "read back verified"
  await worker.terminate()
} else {
  parentPort?.postMessage(await Effect.runPromise(uploadInWorker(workerData as Job)))
}
