// The Promise facade: every service of the library as async methods, for code that does not use
// Effect. Failures reject with the typed errors (an `Error` with a `_tag`); `{ signal }` cancels.
// Run beside `npm run serve` with the variables it prints (unset: Lighthouse's own hosts).
import { writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { Layer, Redacted } from "effect"
import { Signer, Upload } from "lighthouse-effect"
import * as LighthouseNode from "lighthouse-effect/node"
import { makeClient } from "lighthouse-effect/promise"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"

// `createLighthouseNode(options)` takes its hosts from the options only; over `layerConfig()` the
// client reads the LIGHTHOUSE_* variables as well (a wrong one rejects the first call).
const lighthouse = makeClient(Layer.orDie(LighthouseNode.layerConfig()), NodeServices.layer)
const signer = Signer.makeFromAccount(
  privateKeyToAccount((process.env.PRIVATE_KEY as `0x${string}`) ?? generatePrivateKey())
)

const apiKey = await lighthouse.auth.createApiKey(signer) // a Redacted<string>
console.log(String(apiKey)) // "<redacted:ApiKey>"
const stored: string = Redacted.value(apiKey) // the key itself, to keep; methods take either

const path = join(tmpdir(), "facade-example.txt")
await writeFile(path, "from a path on disk\n")
const entry = await lighthouse.upload.file(Upload.Input.path(path), { apiKey: stored })
for await (const file of lighthouse.files.uploads(apiKey)) console.log(file.cid === entry.Hash) // true

try {
  await lighthouse.files.fileInfo("not-a-cid")
} catch (error) {
  console.log((error as Error & { _tag: string })._tag) // "InvalidCid"
}

// A call cancelled by its signal rejects with the typed `Aborted`.
const aborted = await lighthouse.download
  .bytes(entry.Hash, {}, { signal: AbortSignal.abort() })
  .catch((error: Error & { _tag: string }) => error._tag)
console.log(aborted) // "Aborted"

await lighthouse.dispose()
