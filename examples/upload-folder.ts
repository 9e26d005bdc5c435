// Upload a folder from disk, then read one file of it back by its path, verified against the CID.
// Run beside `npm run serve` with the variables it prints (unset: Lighthouse's own hosts).
import { mkdir, mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { Auth, Download, Files, Signer, Upload } from "lighthouse-effect"
import * as LighthouseNode from "lighthouse-effect/node"
import { generatePrivateKey } from "viem/accounts"

// A folder to upload: site/index.html and site/css/style.css.
const site = join(await mkdtemp(join(tmpdir(), "example-")), "site")
await mkdir(join(site, "css"), { recursive: true })
await writeFile(join(site, "index.html"), "<h1>hello</h1>\n")
await writeFile(join(site, "css", "style.css"), "h1 { color: teal }\n")

const program = Effect.gen(function* () {
  const signer = yield* Signer.makeFromPrivateKey(process.env.PRIVATE_KEY ?? generatePrivateKey())
  const apiKey = yield* Auth.Auth.use((auth) => auth.createApiKey(signer))

  const folder = yield* Upload.Upload.use((upload) =>
    upload.folder(Upload.Input.directory(site), {
      apiKey,
      onProgress: ({ bytesSent, totalBytes }) => console.log(`${bytesSent} / ${totalBytes} bytes`)
    })
  )
  // The folder's entry: its name and CID (each file has its own CID inside it).
  console.log(folder.Name, folder.Hash)

  // A file inside the folder, resolved through the folder's verified blocks.
  const css = yield* Download.Download.use((download) => download.bytes(folder.Hash, { path: "css/style.css" }))
  console.log(new TextDecoder().decode(css).trim()) // "h1 { color: teal }"

  const info = yield* Files.Files.use((files) => files.fileInfo(folder.Hash))
  console.log(info.fileName) // "site"
})

await Effect.runPromise(program.pipe(Effect.provide(LighthouseNode.layerConfig())))
