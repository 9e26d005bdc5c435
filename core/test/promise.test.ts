import { mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Redacted } from "effect"
import { type RunningMockNetwork, startMockNetwork } from "lighthouse-effect/mocks/node"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Errors from "../src/Errors.ts"
import { createLighthouseNode } from "../src/node.ts"
import type { LighthouseClient } from "../src/promise.ts"
import * as Signer from "../src/Signer.ts"
import * as Input from "../src/upload/Input.ts"
import { alice } from "./support/accounts.ts"

const account = alice
const signer = Signer.makeFromAccount(account)

describe("Promise facade over the composed layer", () => {
  let mock: RunningMockNetwork
  let lighthouse: LighthouseClient
  beforeAll(() => {
    mock = startMockNetwork({ onUnhandledFrame: "error" })
    // Concurrent key-node calls keep the test in real time short.
    lighthouse = createLighthouseNode({ nodes: { mode: "concurrent" } })
  })
  afterAll(async () => {
    await lighthouse.dispose()
    mock.close()
  })

  it("signs up, uploads a path, reads usage, lists uploads as an async iterable", async () => {
    const apiKey = await lighthouse.auth.createApiKey(signer)
    const dir = await mkdtemp(join(tmpdir(), "lh-promise-"))
    const path = join(dir, "hello.txt")
    await writeFile(path, "hello world\n")
    const entry = await lighthouse.upload.file(Input.path(path), { apiKey, cidVersion: 0 })
    expect(entry.Hash).toBe("QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o")
    const usage = await lighthouse.files.usage(apiKey)
    expect(usage.dataUsed).toBeGreaterThan(0)
    const cids: Array<string> = []
    for await (const file of lighthouse.files.uploads(apiKey)) cids.push(file.cid)
    expect(cids).toEqual([entry.Hash])
  })

  it("encrypts, uploads, recovers the key and decrypts through the key nodes", async () => {
    const apiKey = await lighthouse.auth.createApiKey(signer)
    const token = await lighthouse.auth.token(signer)
    const bytes = new TextEncoder().encode("a secret for three of five nodes")
    const entry = await lighthouse.upload.encryptedBuffer(bytes, {
      apiKey,
      address: signer.address,
      token,
      name: "secret.txt"
    })
    const plain = await lighthouse.download.bytes(entry.Hash, { decrypt: { signer } })
    expect(new TextDecoder().decode(plain)).toBe("a secret for three of five nodes")
  })

  it("verification: the same options, the report, and the typed errors of a lying host", async () => {
    const apiKey = await lighthouse.auth.createApiKey(signer)
    const entry = await lighthouse.upload.text("checked\n", { apiKey })
    const retrieved = await lighthouse.download.retrieve(entry.Hash, { verification: "required" })
    expect(retrieved.verification).toEqual({ verified: true })
    expect(new TextDecoder().decode(retrieved.bytes)).toBe("checked\n")
    const lie = mock.network.faults.lie({ host: "gateway" }, "other-file")
    const failure = await lighthouse.download.bytes(entry.Hash).catch((e: unknown) => e)
    mock.network.faults.remove(lie)
    expect(failure).toBeInstanceOf(Errors.ContentVerificationFailed)
    expect(failure).toMatchObject({ _tag: "ContentVerificationFailed", cid: entry.Hash, problem: "unexpected-block" })
    mock.network.faults.lie({ host: "node" }, "wrong-cid", { times: 1 })
    const mismatch = await lighthouse.upload.text("checked\n", { apiKey }).catch((e: unknown) => e)
    expect(mismatch).toBeInstanceOf(Errors.CidMismatch)
    expect(mismatch).toMatchObject({ _tag: "CidMismatch", expected: entry.Hash })
  })

  it("rejects with the typed catalogue error", async () => {
    const failure = await lighthouse.files.fileInfo("not-a-cid").catch((e: unknown) => e)
    expect(failure).toBeInstanceOf(Errors.InvalidCid)
    expect(failure).toMatchObject({ _tag: "InvalidCid", message: "Invalid CID" })
  })
  it("an optional argument given as undefined is one left out, before or instead of { signal }", async () => {
    const { apiKey } = mock.network.seedAccount(privateKeyToAccount(generatePrivateKey()).address, {
      dataLimit: 1024
    })
    const entry = await lighthouse.upload.text("given as undefined\n", { apiKey }, undefined)
    expect((await lighthouse.files.usage(apiKey, undefined)).dataUsed).toBe(19)
    const bytes = await lighthouse.download.bytes(entry.Hash, undefined, undefined)
    expect(new TextDecoder().decode(bytes)).toBe("given as undefined\n")
    const cids: Array<string> = []
    for await (const file of lighthouse.files.uploads(apiKey, undefined, undefined)) cids.push(file.cid)
    expect(cids).toEqual([entry.Hash])
    const signal = new AbortController().signal
    expect((await lighthouse.download.bytes(entry.Hash, undefined, { signal })).length).toBe(19)
    // A value that is there is still one too many.
    const usage = lighthouse.files.usage as (...args: ReadonlyArray<unknown>) => Promise<unknown>
    const extra = await usage(apiKey, "extra").catch((e: unknown) => e)
    expect(extra).toBeInstanceOf(Errors.InvalidArgument)
    expect((extra as Error).message).toBe(
      "Invalid argument to files.usage: takes at most 1 arguments and { signal }, got 2"
    )
  })

  it("auth and key-shard arguments are decoded with the capabilities' schemas: a wrong shape is InvalidArgument", async () => {
    const loose = (service: "auth" | "keyShards", method: string) =>
      (lighthouse[service] as unknown as Record<string, (...args: ReadonlyArray<unknown>) => Promise<unknown>>)[method]!
    const messageOf = (service: "auth" | "keyShards", method: string, ...args: ReadonlyArray<unknown>) =>
      loose(
        service,
        method
      )(...args).then(
        () => "resolved",
        (e: unknown) => (e instanceof Errors.InvalidArgument ? e.message : `not InvalidArgument: ${String(e)}`)
      )
    expect(await messageOf("auth", "jwt", { address: 42, signature: "0xsig" })).toBe(
      "Invalid argument to auth.jwt: argument 1 must be { address, signature, chain? }"
    )
    // A Redacted holding something else than a string is not a credential.
    expect(await messageOf("auth", "apiKey", { publicKey: signer.address, signedMessage: Redacted.make(42) })).toBe(
      "Invalid argument to auth.apiKey: argument 1 must be { publicKey, signedMessage }"
    )
    expect(await messageOf("auth", "signIn", signer, { chain: 1 })).toBe(
      "Invalid argument to auth.signIn: argument 2 must be { chain? } or undefined"
    )
    expect(await messageOf("auth", "token", { address: signer.address })).toBe(
      "Invalid argument to auth.token: argument 1 must be a signer ({ address, signMessage })"
    )
    const owned = { cid: "bafy", address: signer.address, token: "jwt" }
    expect(await messageOf("keyShards", "save", { ...owned, keyShards: [1, 2, 3, 4, 5] })).toBe(
      "Invalid argument to keyShards.save: argument 1 must be { cid, keyShards, shareTo? } with { signer } or { address, token }"
    )
    expect(await messageOf("keyShards", "recover", { ...owned, count: "3" })).toBe(
      "Invalid argument to keyShards.recover: argument 1 must be { cid, dynamicData?, count?, ownerAddress? } with { signer } or { address, token }"
    )
    // The shape right, the values wrong: the service's own error, not InvalidArgument.
    const badShards = await loose("keyShards", "save")({ ...owned, keyShards: [{}] }).catch((e: unknown) => e)
    expect((badShards as { _tag: string })._tag).toBe("InvalidCid")
  })

  it("upload, download, files and payment arguments are decoded with their schemas too", async () => {
    const loose = lighthouse as unknown as Record<string, Record<string, (...args: ReadonlyArray<unknown>) => unknown>>
    const messageOf = async (service: string, method: string, ...args: ReadonlyArray<unknown>) => {
      try {
        const result = loose[service]![method]!(...args)
        if (typeof result === "object" && result !== null && Symbol.asyncIterator in result) {
          for await (const _ of result as AsyncIterable<unknown>) break
        } else await result
        return "resolved"
      } catch (e) {
        return e instanceof Errors.InvalidArgument ? e.message : `not InvalidArgument: ${String(e)}`
      }
    }
    // Storage types are the two there are; the schema says so before a request is made.
    expect(await messageOf("upload", "text", "x", { apiKey: "key", storageType: "s3" })).toBe(
      "Invalid argument to upload.text: argument 2 must be " +
        "{ apiKey, cidVersion?, dealParameters?, onProgress?, profile?, verify?, storageType?, name?, mimeType? }"
    )
    expect(await messageOf("upload", "text", "x", { apiKey: "key", dealParameters: { num_copies: "2" } })).toBe(
      "Invalid argument to upload.text: argument 2 must be " +
        "{ apiKey, cidVersion?, dealParameters?, onProgress?, profile?, verify?, storageType?, name?, mimeType? }"
    )
    // The stream's options name every field it takes.
    expect(await messageOf("download", "stream", "bafy", { range: { offset: "0" } })).toBe(
      "Invalid argument to download.stream: argument 2 must be " +
        "{ gateway?, path?, storageType?, range?, verification?, trustless?, " +
        "sources?, strategy?, stallTimeout?, rangeSize?, requestsPerSource?, window? } or undefined"
    )
    expect(await messageOf("download", "bytes", "bafy", { decrypt: { signer: {} } })).toBe(
      "Invalid argument to download.bytes: argument 2 must be { gateway?, path?, storageType?, range?, " +
        "verification?, trustless?, sources?, strategy?, stallTimeout?, rangeSize?, requestsPerSource?, window?, " +
        "decrypt? } or undefined"
    )
    expect(await messageOf("files", "uploads", "key", { after: 3 })).toBe(
      "Invalid argument to files.uploads: argument 2 must be { fileType?, after? } or undefined"
    )
    expect(await messageOf("payment", "quote", { files: [1, { fileSize: "1" }] })).toBe(
      "Invalid argument to payment.quote: argument 1 must be { files, network?, token? }"
    )
    // Options that take a signer or an address and a token say so.
    expect(await messageOf("upload", "repair", { apiKey: "key", deleteOrphans: "yes" })).toBe(
      "Invalid argument to upload.repair: argument 1 must be { apiKey, deleteOrphans? } with { signer } or { address, token }"
    )
  })

  it("an encrypted upload takes a signer instead of an address and a token", async () => {
    const { apiKey } = mock.network.seedAccount(signer.address, { dataLimit: 1024 })
    const entry = await lighthouse.upload.encryptedText("signed in by the upload", { apiKey, signer })
    const plain = await lighthouse.download.bytes(entry.Hash, { decrypt: { signer } })
    expect(new TextDecoder().decode(plain)).toBe("signed in by the upload")
  })

  it("a path string where an upload input goes is told the input to give instead", async () => {
    const loose = lighthouse.upload as unknown as Record<string, (...args: ReadonlyArray<unknown>) => Promise<unknown>>
    const messageOf = (method: string, input: unknown) =>
      loose[method]!(input, { apiKey: "key", address: signer.address, token: "jwt" }).then(
        () => "resolved",
        (e: Error) => e.message
      )
    const onFile = 'give Upload.Input.path(path) for a file on disk (Upload from "lighthouse-effect")'
    expect(await messageOf("file", "./report.pdf")).toBe(
      `Invalid argument to upload.file: argument 1 must be a file input, not a path string: ${onFile}`
    )
    expect(await messageOf("car", "./archive.car")).toBe(
      `Invalid argument to upload.car: argument 1 must be a file input, not a path string: ${onFile}`
    )
    expect(await messageOf("encryptedFile", "./secret.pdf")).toBe(
      `Invalid argument to upload.encryptedFile: argument 1 must be a file input, not a path string: ${onFile}`
    )
    expect(await messageOf("folder", "./photos")).toBe(
      "Invalid argument to upload.folder: argument 1 must be a folder input, not a path string: " +
        'give Upload.Input.directory(path) for a folder on disk (Upload from "lighthouse-effect")'
    )
    expect(await messageOf("encryptedFiles", ["./a.txt", "./b.txt"])).toBe(
      "Invalid argument to upload.encryptedFiles: argument 1 must be a folder input or an array of file inputs, " +
        "not a path string: give Upload.Input.path(path) for a file on disk, Upload.Input.directory(path) " +
        'for a folder (Upload from "lighthouse-effect")'
    )
    // Anything else that is not an input keeps the plain message.
    expect(await messageOf("file", 42)).toBe("Invalid argument to upload.file: argument 1 must be a file input")
  })
})
