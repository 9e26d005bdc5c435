// Encrypt a file here, share it with a friend's address, and revoke it again. The key is split
// over the 5 key nodes; each decryption recovers it with the reader's own signature.
// Run beside `npm run serve` with the variables it prints (unset: Lighthouse's own hosts).
import { Config, Effect } from "effect"
import { AccessControl, Auth, Download, Signer, Upload } from "lighthouse-effect"
import * as LighthouseNode from "lighthouse-effect/node"
import { generatePrivateKey } from "viem/accounts"

const program = Effect.gen(function* () {
  const owner = yield* Signer.makeFromPrivateKey(process.env.PRIVATE_KEY ?? generatePrivateKey())
  const friend = yield* Signer.makeFromPrivateKey(generatePrivateKey())
  const apiKey = yield* Auth.Auth.use((auth) => auth.createApiKey(owner))
  const [upload, download, access] = [
    yield* Upload.Upload,
    yield* Download.Download,
    yield* AccessControl.AccessControl
  ]

  const note = yield* upload.encryptedText("meet at noon", { apiKey, signer: owner, name: "note.txt" })
  const readBy = (reader: Signer.Service) =>
    download.bytes(note.Hash, { decrypt: { signer: reader } }).pipe(
      Effect.map((bytes) => new TextDecoder().decode(bytes)),
      Effect.catchTag("AccessDenied", (error) => Effect.succeed(error.message))
    )

  console.log(yield* readBy(friend)) // "Access Denied"
  yield* access.share({ signer: owner, cid: note.Hash, shareTo: [friend.address] })
  console.log(yield* readBy(friend)) // "meet at noon"
  yield* access.revoke({ signer: owner, cid: note.Hash, revokeTo: [friend.address] })
  console.log(yield* readBy(friend)) // "Access Denied"
})

// The concurrent key-node policy: the 5 nodes asked at once, without the provider's 1 s pause between them.
const layer = LighthouseNode.layerConfig({ nodes: Config.succeed({ mode: "concurrent" }) })
await Effect.runPromise(program.pipe(Effect.provide(layer)))
