/**
 * The upload node and the gateway through msw with `fetch`: quota refusal (all or nothing, decided
 * while the body streams), the answer shapes (single entry, wrapping directory, NDJSON, encrypted
 * array, CAR import), recorded headers, one-time tokens, bad requests, and reading content back.
 */
import { CarWriter } from "@ipld/car"
import { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { sha256 } from "multiformats/hashes/sha2"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeEach, describe, expect, it } from "vitest"
import { startMockNetwork } from "../../src/node.ts"
import { addFiles } from "../support/upload.ts"

const running = startMockNetwork({ onUnhandledFrame: "error" })
const { network } = running
afterAll(() => running.close())

const NODE = "https://upload.lighthouse.storage"
const GATEWAY = "https://gateway.lighthouse.storage"
const API = "https://api.lighthouse.storage"
const owner = privateKeyToAccount(generatePrivateKey())
const address = owner.address.toLowerCase()
let apiKey: string
beforeEach(() => {
  network.reset()
  apiKey = network.seedAccount(owner.address, { dataLimit: 10_000 }).apiKey
})

const encoder = new TextEncoder()
type Named = readonly [name: string, data: Uint8Array | string]

const add = (files: ReadonlyArray<Named>, query = "cid-version=0", headers: Record<string, string> = {}) =>
  addFiles(
    apiKey,
    files.map(([name, data]) => [
      name,
      new Blob([typeof data === "string" ? encoder.encode(data) : (data as BlobPart)])
    ]),
    { node: NODE, query, headers }
  )

const usage = () => network.state.accounts.get(address)!

describe("upload node", () => {
  it("refuses an upload past the quota with 402 and keeps nothing of it", async () => {
    const first = await add([["a.bin", new Uint8Array(6_000)]])
    expect(first.status).toBe(200)
    const blocks = await network.state.content.blockCount()

    const refused = await add([
      ["b.bin", new Uint8Array(3_000)],
      ["c.bin", new Uint8Array(2_000)]
    ])
    expect(refused.status).toBe(402)
    expect((await refused.json()).error).toMatch(/^Storage quota exceeded/)
    expect(usage().dataUsed).toBe(6_000)
    expect(await network.state.content.blockCount()).toBe(blocks)
    expect(network.state.files.of(address)).toHaveLength(1)

    // Exactly what is left still fits.
    expect((await add([["d.bin", new Uint8Array(4_000)]])).status).toBe(200)
    expect(usage().dataUsed).toBe(10_000)
    expect((await add([["e.bin", new Uint8Array(1)]])).status).toBe(402)
  })

  it("decides the quota while the body streams: the refusal comes before the body ends", async () => {
    const boundary = "streamingboundary"
    let pulls = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls += 1
        if (pulls === 1) {
          controller.enqueue(
            encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big"\r\n\r\n`)
          )
        } else if (pulls <= 4) {
          controller.enqueue(new Uint8Array(4_000))
        }
        // After 12 000 bytes the sender stalls: the body never ends.
      }
    })
    const response = await fetch(`${NODE}/api/v0/add?cid-version=0`, {
      method: "POST",
      headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: "half"
    } as RequestInit)
    expect(response.status).toBe(402)
    expect(usage().dataUsed).toBe(0)
  })

  it("records Mime-Type, Encryption, X-Deal-Parameter and X-Storage-Type", async () => {
    const response = await add([["notes", "some notes"]], "cid-version=1", {
      "Mime-Type": "text/markdown",
      "X-Deal-Parameter": JSON.stringify({ num_copies: 3, network: "calibration" }),
      "X-Storage-Type": "ipfs"
    })
    const { Hash } = await response.json()
    const record = network.state.files.byCid(Hash)!
    expect(record).toMatchObject({
      mimeType: "text/markdown",
      encryption: false,
      storageType: "ipfs",
      dealParameters: { num_copies: 3, network: "calibration" },
      fileSizeInBytes: "10"
    })
    // The deal parameters drive the number of simulated copies.
    expect(await network.simulateDeal(Hash)).toHaveLength(3)

    const nullDeal = await add([["n.txt", "x"]], "cid-version=1", { "X-Deal-Parameter": "null" })
    expect(network.state.files.byCid((await nullDeal.json()).Hash)!.dealParameters).toBeNull()
    const badDeal = await add([["b.txt", "x"]], "cid-version=1", { "X-Deal-Parameter": "{nope" })
    expect(badDeal.status).toBe(400)
  })

  it("Encryption: true stores every part as its own file and answers a JSON array", async () => {
    const response = await add(
      [
        ["one.bin", "first cipher text"],
        ["sub/two.bin", "second cipher text"]
      ],
      "wrap-with-directory=false&cid-version=1",
      { Encryption: "true" }
    )
    const entries = await response.json()
    expect(entries).toEqual([
      { Name: "one.bin", Hash: expect.any(String), Size: "17" },
      { Name: "sub-two.bin", Hash: expect.any(String), Size: "18" }
    ])
    const info = await (await fetch(`${API}/api/lighthouse/file_info?cid=${entries[1].Hash}`)).json()
    expect(info).toMatchObject({ encryption: true, fileName: "sub-two.bin", fileSizeInBytes: "18" })
  })

  it("wrap-with-directory=true answers the wrapping directory; several top-level entries answer NDJSON", async () => {
    const wrapped = await add(
      [
        ["a.txt", "A"],
        ["b.txt", "B"]
      ],
      "wrap-with-directory=true&cid-version=0"
    )
    const root = await wrapped.json()
    expect(root.Name).toBe("")
    const listing = await (await fetch(`${GATEWAY}/ipfs/${root.Hash}/`)).text()
    expect(listing).toContain(">a.txt<")
    expect(listing).toContain(">b.txt<")

    const loose = await add(
      [
        ["a.txt", "A"],
        ["dir/b.txt", "B"]
      ],
      "wrap-with-directory=false&cid-version=0"
    )
    expect(loose.headers.get("content-type")).toBe("application/x-ndjson")
    const lines = (await loose.text())
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
    expect(lines.map((line) => line.Name)).toEqual(["a.txt", "dir"])
    expect(network.state.files.of(address).map((record) => record.fileName)).toEqual(["dir", "a.txt", ""])
  })

  it("accepts the one-time token address$signature once", async () => {
    const message = await (await fetch(`${API}/api/auth/get_message?publicKey=${owner.address}`)).json()
    const token = `${owner.address}$${await owner.signMessage({ message })}`
    const form = () => {
      const data = new FormData()
      data.append("file", new Blob(["paid per use"]), "once.txt")
      return data
    }
    const first = await fetch(`${NODE}/api/v0/add`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}` },
      body: form()
    })
    expect(first.status).toBe(200)
    const again = await fetch(`${NODE}/api/v0/add`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}` },
      body: form()
    })
    expect(again.status).toBe(401)
    expect(await again.json()).toEqual({ error: "Authentication failed" })
  })

  it("refuses a file or folder entry named .. (or with a .. segment) and stores nothing", async () => {
    const cases: ReadonlyArray<
      readonly [names: ReadonlyArray<string>, query: string, headers: Record<string, string>]
    > = [
      [[".."], "cid-version=0", {}],
      [["../../../etc/passwd"], "cid-version=0", {}],
      [["photos/a.txt", "photos/../../x.txt"], "cid-version=0", {}],
      [["a/.."], "cid-version=1&wrap-with-directory=true", {}],
      [[".."], "cid-version=0", { Encryption: "true" }]
    ]
    for (const [names, query, headers] of cases) {
      const response = await add(
        names.map((name) => [name, "x"] as const),
        query,
        headers
      )
      expect(response.status).toBe(400)
      const bad = names.find((n) => n.split("/").includes(".."))!
      expect(await response.json()).toEqual({
        error: `Invalid file name ${JSON.stringify(bad)}: a path segment is ".."`
      })
    }
    expect(network.state.files.of(address)).toHaveLength(0)
    expect(await network.state.content.blockCount()).toBe(0)
    expect(usage().dataUsed).toBe(0)
  })

  it("answers 400 to malformed requests and 401 without a key", async () => {
    expect((await add([["a", "x"]], "cid-version=2")).status).toBe(400)
    expect((await add([["a", "x"]], "raw-leaves=maybe")).status).toBe(400)
    const notMultipart = await fetch(`${NODE}/api/v0/add`, {
      method: "POST",
      headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
      body: "{}"
    })
    expect(notMultipart.status).toBe(400)
    const noParts = await fetch(`${NODE}/api/v0/add`, {
      method: "POST",
      headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "multipart/form-data; boundary=x" },
      body: "--x--\r\n"
    })
    expect(await noParts.json()).toEqual({ error: "File argument 'data' is required" })
    const anonymous = await fetch(`${NODE}/api/v0/add`, { method: "POST", body: new FormData() })
    expect(anonymous.status).toBe(401)
    expect((await fetch(`${NODE}/api/v0/unknown`, { method: "POST" })).status).toBe(404)
  })

  it("dag/import stores a CAR's blocks, checks them, and refuses a corrupted one", async () => {
    const bytes = encoder.encode("block in a car")
    const cid = CID.createV1(raw.code, await sha256.digest(bytes))
    const car = async (payload: Uint8Array) => {
      const { writer, out } = CarWriter.create([cid])
      const chunks: Array<Uint8Array> = []
      const reading = (async () => {
        for await (const chunk of out) chunks.push(chunk)
      })()
      await writer.put({ cid, bytes: payload })
      await writer.close()
      await reading
      return new Blob(chunks as Array<BlobPart>)
    }
    const post = async (blob: Blob) => {
      const form = new FormData()
      form.append("file", blob, "data.car")
      return fetch(`${NODE}/api/v0/dag/import`, {
        method: "POST",
        headers: { Authorization: `Bearer ${apiKey}` },
        body: form
      })
    }
    const corrupted = await post(await car(encoder.encode("block in a cat")))
    expect(corrupted.status).toBe(400)
    expect(await network.state.content.has(cid)).toBe(false)

    const imported = await post(await car(bytes))
    expect(await imported.json()).toMatchObject({
      Root: { Cid: { "/": cid.toString() }, PinErrorMsg: "" },
      Hash: cid.toString()
    })
    expect(await (await fetch(`${GATEWAY}/ipfs/${cid}`)).text()).toBe("block in a car")
    expect(usage().dataUsed).toBe(bytes.byteLength)
  })
})

describe("gateway", () => {
  it("streams files by CID (any CID form), with kubo's headers; HEAD gives the length", async () => {
    const data = Uint8Array.from({ length: 700_000 }, (_, i) => (i * 7) % 256)
    network.setQuota(owner.address, { dataLimit: 10_000_000 })
    const { Hash } = await (await add([["pic.png", data]], "cid-version=0")).json()
    const cat = await fetch(`${GATEWAY}/api/v0/cat/${Hash}`, { method: "POST" })
    expect(cat.headers.get("content-type")).toBe("application/octet-stream")
    expect(new Uint8Array(await cat.arrayBuffer())).toEqual(data)

    const v1 = CID.parse(Hash).toV1().toString()
    const get = await fetch(`${GATEWAY}/ipfs/${v1}`)
    expect(get.headers.get("etag")).toBe(`"${v1}"`)
    expect((await get.arrayBuffer()).byteLength).toBe(700_000)

    const head = await fetch(`${GATEWAY}/ipfs/${Hash}`, { method: "HEAD" })
    expect(head.headers.get("content-length")).toBe("700000")
  })

  it("serves a file as the type it was uploaded with: its Mime-Type, else its part's type, else its name's", async () => {
    const served = async (path: string) => (await fetch(`${GATEWAY}/ipfs/${path}`)).headers.get("content-type")
    const hashOf = async (response: Promise<Response>) => ((await (await response).json()) as { Hash: string }).Hash
    // The library's `upload.text`: named "text", sent with `Mime-Type: text/plain`.
    const text = await hashOf(add([["text", "hello world\n"]], "cid-version=1", { "Mime-Type": "text/plain" }))
    expect(await served(text)).toBe("text/plain")
    // The provider SDK's `upload("notes.txt")`: no header, an octet-stream part, a name with a type.
    expect(await served(await hashOf(add([["notes.txt", "some notes\n"]])))).toBe("text/plain")
    // A browser File with a type, under a name without one.
    const table = new Blob(["a,b\n1,2\n"], { type: "text/csv" })
    expect(await served(await hashOf(addFiles(apiKey, [["table", table]], { node: NODE })))).toBe("text/csv")
    // Nothing to go by, or encrypted bytes: octet-stream.
    expect(await served(await hashOf(add([["blob", new Uint8Array([1, 2, 3])]])))).toBe("application/octet-stream")
    const [secret] = (await (
      await add([["secret.txt", "ciphertext here"]], "cid-version=1", { Encryption: "true", "Mime-Type": "text/plain" })
    ).json()) as Array<{ Hash: string }>
    expect(await served(secret!.Hash)).toBe("application/octet-stream")
    // A URL that names the file with a type serves that type.
    const wrapped = await hashOf(add([["page.html", "<p>hi</p>"]], "cid-version=1&wrap-with-directory=true"))
    expect(await served(`${wrapped}/page.html`)).toBe("text/html")
  })

  it("serves a folder's index.html, 404s unknown content, 400s directories on cat and bad CIDs", async () => {
    const { Hash } = await (
      await add([
        ["site/index.html", "<h1>hi</h1>"],
        ["site/style.css", "h1{}"]
      ])
    ).json()
    const page = await fetch(`${GATEWAY}/ipfs/${Hash}/`)
    expect(page.headers.get("content-type")).toBe("text/html")
    expect(await page.text()).toBe("<h1>hi</h1>")
    expect(await (await fetch(`${GATEWAY}/ipfs/${Hash}/style.css`)).text()).toBe("h1{}")
    expect((await fetch(`${GATEWAY}/ipfs/${Hash}/missing.css`)).status).toBe(404)
    expect((await fetch(`${GATEWAY}/api/v0/cat/${Hash}`, { method: "POST" })).status).toBe(400)
    expect((await fetch(`${GATEWAY}/api/v0/cat/${Hash}/style.css`, { method: "POST" })).status).toBe(200)
    expect(
      (await fetch(`${GATEWAY}/api/v0/cat/QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH`, { method: "POST" })).status
    ).toBe(404)
    expect((await fetch(`${GATEWAY}/api/v0/cat/not-a-cid`, { method: "POST" })).status).toBe(400)
    expect((await fetch(`${GATEWAY}/ipns/k51qzi5uqu5dlr99jbwpbli7iqtdd60c8hk0wgrsxyvzu3lhymapd1rn4npdd8`)).status).toBe(
      404
    )
  })
})
