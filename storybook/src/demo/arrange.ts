/** What stories arrange before the user acts, done through the library on the demo's runtime. */
import { Effect } from "effect"
import { AccessControl, Upload } from "lighthouse-effect"
import { demo } from "./DemoNetwork.ts"
import type { DemoWallet } from "./wallets.ts"

/** Encrypts and uploads a file for `owner` (key shards saved on the 5 nodes); its CID. */
export const uploadEncrypted = (owner: DemoWallet, file: File): Promise<string> =>
  demo().run(
    Effect.gen(function* () {
      const upload = yield* Upload.Upload
      const entry = yield* upload.encryptedFile(file, { apiKey: owner.apiKey, signer: owner.signer })
      return entry.Hash
    })
  )

/** Uploads a file as is for `owner`; its CID. */
export const uploadPublic = (owner: DemoWallet, file: File): Promise<string> =>
  demo().run(Upload.Upload.use((upload) => upload.file(file, { apiKey: owner.apiKey })).pipe(Effect.map((e) => e.Hash)))

/** The owner shares a file with `to`. */
export const share = (owner: DemoWallet, cid: string, to: DemoWallet): Promise<void> =>
  demo().run(
    AccessControl.AccessControl.use((access) =>
      access.share({ signer: owner.signer, cid, shareTo: [to.address] })
    ).pipe(Effect.asVoid)
  )

/** The owner sets the file's access conditions (EVM). */
export const setConditions = (
  owner: DemoWallet,
  cid: string,
  conditions: ReadonlyArray<unknown>,
  aggregator?: string
): Promise<void> =>
  demo().run(
    AccessControl.AccessControl.use((access) =>
      access.update({ signer: owner.signer, cid, conditions, ...(aggregator === undefined ? {} : { aggregator }) })
    ).pipe(Effect.asVoid)
  )

/** A small PNG drawn in the browser: a picture to preview after decryption. */
export const drawPng = async (label: string): Promise<Blob> => {
  const canvas = new OffscreenCanvas(160, 100)
  const context = canvas.getContext("2d")!
  context.fillStyle = "#2b6cb0"
  context.fillRect(0, 0, 160, 100)
  context.fillStyle = "#ffffff"
  context.font = "bold 22px sans-serif"
  context.fillText(label, 16, 58)
  return canvas.convertToBlob({ type: "image/png" })
}
