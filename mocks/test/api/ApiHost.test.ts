/**
 * The API host through msw with `fetch`: sign-in messages and API keys (signature checks, single
 * use), bearer auth, cursor pagination over several pages, file info, deals and proofs (400 before
 * a deal, a PoDSI that verifies after), tickers and IPNS edge cases.
 */
import { CID } from "multiformats/cid"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeEach, describe, expect, it } from "vitest"
import { fromHex, verifyAggregate } from "../../src/api/Podsi.ts"
import { startMockNetwork } from "../../src/node.ts"
import { addFile } from "../support/upload.ts"

const running = startMockNetwork({ pageSize: 3, onUnhandledFrame: "error" })
const { network } = running
afterAll(() => running.close())
beforeEach(() => network.reset())

const API = "https://api.lighthouse.storage"
const get = (path: string, apiKey?: string) =>
  fetch(`${API}${path}`, apiKey === undefined ? {} : { headers: { Authorization: `Bearer ${apiKey}` } })

const uploadText = async (apiKey: string, name: string, text: string) => {
  const response = await addFile(apiKey, name, new Blob([text]), { query: "cid-version=1" })
  return (await response.json()) as { Name: string; Hash: string; Size: string }
}

describe("auth", () => {
  it("issues an API key only for a signature of the message it issued, once", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey())
    const createKey = (signedMessage: string, publicKey: string = wallet.address) =>
      fetch(`${API}/api/auth/create_api_key`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ publicKey, signedMessage })
      })

    // Nothing issued yet.
    expect((await createKey(await wallet.signMessage({ message: "anything" }))).status).toBe(400)

    const message: string = await (await get(`/api/auth/get_message?publicKey=${wallet.address}`)).json()
    expect(message).toMatch(/^Please prove you are the owner/)
    expect(message).toContain(wallet.address.toLowerCase())

    // Another key's signature, or a signature of another text, is refused.
    const intruder = privateKeyToAccount(generatePrivateKey())
    expect((await createKey(await intruder.signMessage({ message }))).status).toBe(401)
    expect((await createKey(await wallet.signMessage({ message: `${message}!` }))).status).toBe(401)
    expect((await createKey("0x1234")).status).toBe(401)

    const signature = await wallet.signMessage({ message })
    const response = await createKey(signature)
    expect(response.status).toBe(200)
    const apiKey: string = await response.json()
    expect(typeof apiKey).toBe("string")
    expect((await get("/api/user/user_data_usage", apiKey)).status).toBe(200)

    // The message is spent.
    expect((await createKey(signature)).status).toBe(400)
  })

  it("a newer message replaces the older one; bad addresses and bodies are 400", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey())
    const first: string = await (await get(`/api/auth/get_auth_message?publicKey=${wallet.address}`)).json()
    const second: string = await (await get(`/api/auth/get_auth_message?publicKey=${wallet.address}`)).json()
    expect(second).not.toBe(first)
    const create = (body: unknown) =>
      fetch(`${API}/api/auth/create_api_key`, { method: "POST", body: JSON.stringify(body) })
    expect(
      (await create({ publicKey: wallet.address, signedMessage: await wallet.signMessage({ message: first }) })).status
    ).toBe(401)
    expect(
      (await create({ publicKey: wallet.address, signedMessage: await wallet.signMessage({ message: second }) })).status
    ).toBe(200)

    expect((await get("/api/auth/get_message?publicKey=0x1234")).status).toBe(400)
    expect((await get("/api/auth/get_message")).status).toBe(400)
    expect((await create({ publicKey: wallet.address })).status).toBe(400)
    expect((await fetch(`${API}/api/auth/create_api_key`, { method: "POST", body: "not json" })).status).toBe(400)
  })

  it("every bearer route answers 401 without a valid key", async () => {
    const routes: ReadonlyArray<[string, string]> = [
      ["GET", "/api/user/user_data_usage"],
      ["GET", "/api/user/files_uploaded?lastKey=null"],
      ["DELETE", "/api/user/delete_file?id=x"],
      ["GET", "/api/ipns/generate_key"],
      ["GET", "/api/ipns/get_ipns_records"],
      ["GET", "/api/ipns/publish_record?cid=x&keyName=y"],
      ["DELETE", "/api/ipns/remove_key?keyName=y"]
    ]
    for (const [method, path] of routes) {
      for (const headers of [{}, { Authorization: "Bearer wrong" }, { Authorization: "Basic abc" }]) {
        const response = await fetch(`${API}${path}`, { method, headers })
        expect(response.status, `${method} ${path}`).toBe(401)
        expect(await response.json()).toEqual({ error: "Authentication failed" })
      }
    }
  })
})

describe("uploads list", () => {
  it("cursor pagination walks every page, newest first, and rejects an unknown cursor", async () => {
    const { apiKey, address } = network.seedAccount(privateKeyToAccount(generatePrivateKey()).address)
    const other = network.seedAccount(privateKeyToAccount(generatePrivateKey()).address)
    const uploaded: Array<string> = []
    for (let i = 0; i < 8; i++) uploaded.push((await uploadText(apiKey, `f${i}.txt`, `content ${i}`)).Hash)
    await uploadText(other.apiKey, "theirs.txt", "not mine")

    const seen: Array<string> = []
    let lastKey = "null"
    let pages = 0
    for (;;) {
      const page = await (await get(`/api/user/files_uploaded?lastKey=${lastKey}`, apiKey)).json()
      pages += 1
      expect(page.totalFiles).toBe(8)
      for (const file of page.fileList) {
        expect(file.publicKey).toBe(address)
        expect(Object.keys(file).sort()).toEqual([
          "cid",
          "createdAt",
          "encryption",
          "fileName",
          "fileSizeInBytes",
          "id",
          "lastUpdate",
          "mimeType",
          "publicKey",
          "status",
          "txHash"
        ])
      }
      seen.push(...page.fileList.map((file: { cid: string }) => file.cid))
      if (page.fileList.length < 3) break
      lastKey = page.fileList.at(-1).id
    }
    expect(pages).toBe(3)
    expect(seen).toEqual([...uploaded].reverse())

    expect((await get("/api/user/files_uploaded?lastKey=no-such-id", apiKey)).status).toBe(400)
    expect((await get("/api/user/files_uploaded", apiKey)).status).toBe(200)
    const walrusOnly = await (await get("/api/user/files_uploaded?lastKey=null&fileType=walrus", apiKey)).json()
    expect(walrusOnly).toEqual({ fileList: [], totalFiles: 0 })
  })

  it("delete_file only deletes the caller's own files", async () => {
    const alice = network.seedAccount(privateKeyToAccount(generatePrivateKey()).address)
    const bob = network.seedAccount(privateKeyToAccount(generatePrivateKey()).address)
    await uploadText(alice.apiKey, "a.txt", "alice")
    const id = network.state.files.of(alice.address)[0]!.id
    const attempt = await fetch(`${API}/api/user/delete_file?id=${id}`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${bob.apiKey}` }
    })
    expect(attempt.status).toBe(404)
    expect(network.state.files.of(alice.address)).toHaveLength(1)
    const missing = await fetch(`${API}/api/user/delete_file`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${alice.apiKey}` }
    })
    expect(missing.status).toBe(400)
  })
})

describe("file info, deals and proofs", () => {
  it("file_info finds a file by any CID form; 404 unknown, 400 invalid", async () => {
    const { apiKey } = network.seedAccount(privateKeyToAccount(generatePrivateKey()).address)
    const { Hash } = await (await addFile(apiKey, "v0.txt", new Blob(["v0 file"]), { query: "cid-version=0" })).json()
    const v1 = CID.parse(Hash).toV1().toString()
    expect(await (await get(`/api/lighthouse/file_info?cid=${v1}`)).json()).toMatchObject({
      cid: Hash,
      fileName: "v0.txt"
    })
    expect((await get("/api/lighthouse/file_info?cid=QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH")).status).toBe(404)
    expect((await get("/api/lighthouse/file_info?cid=invalidCID")).status).toBe(400)
  })

  it("deal_status is [] and get_proof 400 until a deal; then a PoDSI that verifies", async () => {
    const { apiKey } = network.seedAccount(privateKeyToAccount(generatePrivateKey()).address)
    const { Hash } = await uploadText(apiKey, "proof.txt", "prove that I am stored somewhere")
    expect(await (await get(`/api/lighthouse/deal_status?cid=${Hash}`)).json()).toEqual([])
    const before = await get(`/api/lighthouse/get_proof?cid=${Hash}`)
    expect(before.status).toBe(400)
    expect(await before.json()).toEqual({ error: "Proof Doesn't exist yet" })
    expect((await get("/api/lighthouse/deal_status?cid=")).status).toBe(400)

    const [deal] = await network.simulateDeal(Hash)
    const statuses = await (await get(`/api/lighthouse/deal_status?cid=${Hash}`)).json()
    expect(statuses).toEqual([
      expect.objectContaining({
        DealID: deal!.dealId,
        Provider: deal!.provider,
        payloadCid: Hash,
        pieceCID: expect.stringMatching(/^baga6ea4seaq/),
        dealStatus: "Sealing: Proving",
        endEpoch: statuses[0].startEpoch + 518_400
      })
    ])

    const proof = await (await get(`/api/lighthouse/get_proof?cid=${Hash}`)).json()
    expect(proof.pieceCID).toMatch(/^baga6ea4seaq/)
    const [info] = proof.dealInfo
    expect(info.dealId).toBe(deal!.dealId)
    // commPc is the hex of the piece CID's bytes: 0x01, fil-commitment-unsealed, sha2-256-trunc254-padded, 32 bytes.
    expect(info.proof.verifierData.commPc).toMatch(/^0181e203922020[0-9a-f]{64}$/)
    const commP = fromHex(info.proof.verifierData.commPc.slice(14))
    const record = info.proof.indexRecord
    expect(record.proofIndex).toBe(info.proof.verifierData.commPc.slice(14))
    expect(record.size).toBe(Number.parseInt(info.proof.verifierData.sizePc, 16))
    const toProof = (p: { index: string; path: Array<string> }) => ({
      index: Number.parseInt(p.index, 16),
      path: p.path.map(fromHex)
    })
    const subtree = toProof(info.proof.inclusionProof.proofSubtree)
    expect(subtree.index * record.size).toBe(record.proofSubtree)
    // The deal's piece CID (baga…) carries the aggregate root as its digest.
    const aggregateRoot = CID.parse(statuses[0].pieceCID).multihash.digest
    const entry = { commDs: commP, offset: record.proofSubtree, size: record.size, checksum: fromHex(record.checksum) }
    expect(
      await verifyAggregate(aggregateRoot, { commP }, entry, subtree, toProof(info.proof.inclusionProof.proofIndex))
    ).toBe(true)
    // A tampered path no longer reaches the deal's root.
    const tampered = { ...subtree, path: subtree.path.map((node, i) => (i === 0 ? new Uint8Array(32).fill(1) : node)) }
    expect(
      await verifyAggregate(aggregateRoot, { commP }, entry, tampered, toProof(info.proof.inclusionProof.proofIndex))
    ).toBe(false)

    await expect(network.simulateDeal("QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH")).rejects.toThrow(
      "no stored content"
    )
  })

  it("get_ticker answers the price set; 404 for an unknown symbol", async () => {
    expect(await (await get("/api/lighthouse/get_ticker?symbol=FIL")).json()).toBe(5)
    network.setTickerPrice("FIL", 3.25)
    expect(await (await get("/api/lighthouse/get_ticker?symbol=fil")).json()).toBe(3.25)
    expect((await get("/api/lighthouse/get_ticker?symbol=NOPE")).status).toBe(404)
    expect((await get("/api/lighthouse/get_ticker")).status).toBe(400)
    network.reset()
    expect(await (await get("/api/lighthouse/get_ticker?symbol=FIL")).json()).toBe(5)
  })

  it("unknown API paths are 404", async () => {
    expect((await get("/api/lighthouse/nothing")).status).toBe(404)
  })
})
