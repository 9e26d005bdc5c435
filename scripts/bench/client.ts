/**
 * The library in a bench's child process, set up alike for every operation: `LighthouseNode.layer` pointed at
 * the served network, an account signed in (its token for encrypted uploads), then one upload or
 * download. Shared by `wire.ts` and `bigFile.ts`.
 *
 * Written in TypeScript that Node runs as it is (types stripped, no loader), so `wire.ts` can
 * measure the built package as a Node program loads it: a loader adds its own heap, and the heap's
 * size is what every full collection during a transfer pays for.
 */
import { Effect, ManagedRuntime } from "effect"
import { Auth, Download, Signer, Upload } from "lighthouse-effect"
import * as LighthouseNode from "lighthouse-effect/node"
import { privateKeyToAccount } from "viem/accounts"

// Hardhat's account #1: a throw-away key for the local network only.
export const PRIVATE_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"

export type Urls = Readonly<Record<"api" | "node" | "gateway" | "encryption", string>>

/** One operation of a child: `none` is the set-up alone (what every other one is measured less). */
export type Operation =
  | "none"
  | "upload-unverified"
  | "upload-verified"
  | "upload-encrypted"
  | "download-off"
  | "download-car"
  | "download-decrypt"

export interface OperationInput {
  readonly urls: Urls
  readonly apiKey: string
  readonly file: string
  readonly cid?: string | undefined
  readonly out?: string | undefined
}

/** The set-up every operation has; `run` runs one operation, `dispose` ends the runtime. */
export const openClient = async (urls: Urls) => {
  const runtime = ManagedRuntime.make(LighthouseNode.layer({ hosts: urls }))
  const signer = Signer.makeFromAccount(privateKeyToAccount(PRIVATE_KEY))
  const token = await runtime.runPromise(Effect.flatMap(Effect.service(Auth.Auth), (auth) => auth.token(signer)))
  const upload = await runtime.runPromise(Effect.service(Upload.Upload))
  const download = await runtime.runPromise(Effect.service(Download.Download))
  const runEffect = <A, E>(effect: Effect.Effect<A, E, never>) => runtime.runPromise(effect)

  /** Runs `which`; answers the uploaded CID (empty for downloads and `none`). */
  const run = async (which: Operation, input: OperationInput): Promise<string> => {
    const file = Upload.Input.path(input.file)
    const apiKey = input.apiKey
    switch (which) {
      case "none":
        return ""
      case "upload-unverified":
        return (await runEffect(upload.file(file, { apiKey, verify: false }))).Hash
      case "upload-verified":
        return (await runEffect(upload.file(file, { apiKey }))).Hash
      case "upload-encrypted":
        return (await runEffect(upload.encryptedFile(file, { apiKey, address: signer.address, token }))).Hash
      case "download-off":
        await runEffect(download.toFile(input.cid!, input.out!, { verification: "off" }))
        return ""
      case "download-car":
        await runEffect(download.toFile(input.cid!, input.out!, { verification: "required" }))
        return ""
      case "download-decrypt":
        await runEffect(download.toFile(input.cid!, input.out!, { decrypt: { signer } }))
        return ""
    }
  }
  return { run, dispose: () => runtime.dispose() }
}
