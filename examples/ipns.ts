// IPNS: a name that always points at the latest version of something. Publish one version, then
// another, under the same name.
// Run beside `npm run serve` with the variables it prints (unset: Lighthouse's own hosts).
import { Effect } from "effect"
import { Auth, Ipns, Signer, Upload } from "lighthouse-effect"
import * as LighthouseNode from "lighthouse-effect/node"
import { generatePrivateKey } from "viem/accounts"

const program = Effect.gen(function* () {
  const signer = yield* Signer.makeFromPrivateKey(process.env.PRIVATE_KEY ?? generatePrivateKey())
  const apiKey = yield* Auth.Auth.use((auth) => auth.createApiKey(signer))
  const [upload, ipns] = [yield* Upload.Upload, yield* Ipns.Ipns]

  const { ipnsName, ipnsId } = yield* ipns.generateKey(apiKey) // ipnsId: the name, k51…
  const published: Array<string> = []
  for (const version of ["v1", "v2"]) {
    const entry = yield* upload.text(`release ${version}\n`, { apiKey, name: "release.txt" })
    const record = yield* ipns.publishRecord(apiKey, { cid: entry.Hash, keyName: ipnsName })
    console.log(record.Name === ipnsId, record.Value === `/ipfs/${entry.Hash}`) // "true true"
    published.push(entry.Hash)
  }

  // The name now points at the last version published.
  const record = (yield* ipns.records(apiKey)).find((key) => key.ipnsId === ipnsId)
  console.log(record?.cid === published[1]) // true

  yield* ipns.removeKey(apiKey, ipnsName)
  console.log((yield* ipns.records(apiKey)).some((key) => key.ipnsId === ipnsId)) // false
})

await Effect.runPromise(program.pipe(Effect.provide(LighthouseNode.layerConfig())))
