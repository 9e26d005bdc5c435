import { Effect } from "effect"
import { Auth, Download, Signer, Upload } from "lighthouse-effect"
import * as LighthouseNode from "lighthouse-effect/node"
import { generatePrivateKey } from "viem/accounts"

const program = Effect.gen(function* () {
  const signer = yield* Signer.makeFromPrivateKey(generatePrivateKey()) // a new wallet; any viem account or EIP-1193 wallet works
  const apiKey = yield* Auth.Auth.use((auth) => auth.createApiKey(signer)) // signs the API's message
  const upload = yield* Upload.Upload
  const download = yield* Download.Download

  const plain = yield* upload.text("hello from the tour\n", { apiKey, name: "hello.txt" })
  console.log(plain.Hash) // "bafkreia46agyt7uzwbnaibsxobvddztet34ommjyrjjhbdn3x3fqett4pi"
  const bytes = yield* download.bytes(plain.Hash) // every block checked against the CID
  console.log(new TextDecoder().decode(bytes).trim()) // "hello from the tour"

  // Encrypted here; the key split over the 5 key nodes, recovered with the wallet's signature.
  const secret = yield* upload.encryptedText("for my eyes only", { apiKey, signer })
  const plaintext = yield* download.bytes(secret.Hash, { decrypt: { signer } })
  console.log(new TextDecoder().decode(plaintext)) // "for my eyes only"
})

// layerConfig(): hosts from the LIGHTHOUSE_* variables (`npm run serve` prints them); unset, Lighthouse's.
await Effect.runPromise(program.pipe(Effect.provide(LighthouseNode.layerConfig())))
