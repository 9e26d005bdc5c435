// Download from several gateways at once, none of them trusted: every block is checked against
// the CID, so a gateway that fails, stalls or lies is dropped and another goes on from there.
// Run beside `npm run serve -- --gateway rate=10MiB --gateway lie` with the variables it prints and
// SOURCES set to its gateways, comma-separated (unset: Lighthouse's gateway, then the public ones).
import { Effect } from "effect"
import { Auth, Download, Signer, Upload } from "lighthouse-effect"
import * as LighthouseNode from "lighthouse-effect/node"
import { generatePrivateKey } from "viem/accounts"

const sources = process.env.SOURCES?.split(",") ?? ["gateway", "public"]

const program = Effect.gen(function* () {
  const signer = yield* Signer.makeFromPrivateKey(process.env.PRIVATE_KEY ?? generatePrivateKey())
  const apiKey = yield* Auth.Auth.use((auth) => auth.createApiKey(signer))
  const content = Uint8Array.from({ length: 3 * 1024 * 1024 }, (_, i) => (i * 31) % 251)
  const { Hash: cid } = yield* Upload.Upload.use((upload) => upload.buffer(content, { apiKey, name: "big.bin" }))

  // "split": 1 MiB ranges, asked of every source in parallel, handed out in order.
  const { bytes, verification } = yield* Download.Download.use((download) =>
    download.retrieve(cid, { sources, strategy: "split", rangeSize: 1024 * 1024 })
  )
  console.log(bytes.length, verification.verified) // "3145728 true"
  for (const source of verification.sources ?? []) {
    console.log(source.gateway, source.bytes, source.dropped ?? "kept")
  }
})

await Effect.runPromise(program.pipe(Effect.provide(LighthouseNode.layerConfig())))
