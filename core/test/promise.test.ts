import { mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startMockNetwork, type RunningMockNetwork } from "lighthouse-effect/mocks/node"
import * as Errors from "../src/Errors.ts"
import { createLighthouseNode } from "../src/node.ts"
import type { LighthouseClient } from "../src/promise.ts"
import * as Input from "../src/upload/Input.ts"
import * as Signer from "../src/Signer.ts"

const account = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d")
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
})
