/**
 * Flow `encryption`: the owner signs in to the key nodes once (a JWT) and uploads several files
 * encrypted on the client in one request, each with its own key split 3-of-5 over the 5 key
 * nodes; then downloads each one and decrypts it, the key recovered from 3 nodes with the owner's
 * signature.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { Effect, Redacted } from "effect"
import { Auth, Download, Upload } from "lighthouse-effect"
import { Env } from "./Environment.ts"
import type { Flow } from "./Flow.ts"
import * as Format from "./Format.ts"
import { keep, need, type Stored } from "./Session.ts"
import { CheckFailed, check, sameBytes, step } from "./Step.ts"
import { pattern } from "./UploadFlow.ts"

const { Input } = Upload
const encoder = new TextEncoder()

export const encryption: Flow = {
  name: "encryption",
  title: "several files encrypted with one JWT, downloaded and decrypted",
  needs: ["account"],
  run: Effect.gen(function* () {
    const { wallets, dir } = yield* Env
    const auth = yield* Auth.Auth
    const uploads = yield* Upload.Upload
    const download = yield* Download.Download
    const apiKey = yield* need("apiKey")
    const owner = wallets.owner

    const token = yield* step("auth.token", "sign in to the key nodes (JWT)", auth.token(owner.signer), (jwt) => {
      const exp = Auth.jwtExpiry(Redacted.value(jwt))
      return `${Format.secret(jwt)} for owner${exp === undefined ? "" : `, valid until ${new Date(exp * 1000).toISOString()}`}`
    })

    const plain = {
      "contract.pdf": pattern(5, 120 * 1024),
      "diary.txt": encoder.encode("Dear diary, nobody but three key nodes can read this.\n"),
      "keys.json": encoder.encode(JSON.stringify({ wallet: "cold", hint: "under the mattress" }))
    }
    const pdfPath = nodePath.join(dir, "contract.pdf")
    const entries = yield* step(
      "upload.encryptedFiles",
      "encrypt and upload 3 files",
      Effect.gen(function* () {
        yield* Effect.tryPromise({
          try: () => fs.writeFile(pdfPath, plain["contract.pdf"]),
          catch: (e) => new CheckFailed({ message: `could not write ${pdfPath}: ${e}` })
        })
        return yield* uploads.encryptedFiles(
          [
            Input.path(pdfPath),
            Input.text(new TextDecoder().decode(plain["diary.txt"]), "diary.txt"),
            Input.bytes(plain["keys.json"], "keys.json")
          ],
          { apiKey, address: owner.address, token }
        )
      }),
      (uploaded) => `one request, one JWT, 3 keys × 5 shards: ${uploaded.map((e) => `${e.Name} ${e.Hash}`).join(", ")}`
    )
    const stored: ReadonlyArray<Stored> = entries.map((entry) => ({
      cid: entry.Hash,
      name: entry.Name,
      bytes: plain[entry.Name as keyof typeof plain]
    }))
    yield* keep("encrypted", stored)

    yield* step(
      "download.decrypt",
      "download and decrypt as owner",
      Effect.gen(function* () {
        let total = 0
        for (const file of stored) {
          const stream = yield* download.bytes(file.cid)
          yield* check(!sameBytes(stream, file.bytes), `${file.name} is stored in the clear`)
          const decrypted = yield* download.bytes(file.cid, { decrypt: { signer: owner.signer } })
          yield* check(sameBytes(decrypted, file.bytes), `${file.name}: the decrypted bytes differ from the original`)
          total += decrypted.length
        }
        return total
      }),
      (total) =>
        `${stored.length}/${stored.length} identical after decryption (${Format.bytes(total)}), ciphertext on the gateway`
    )
  })
}
