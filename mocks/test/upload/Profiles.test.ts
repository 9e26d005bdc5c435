/**
 * The simulated node imports with the layout the `add` query states, as kubo's RPC flags say it
 * (`chunker=size-N`, `max-file-links`, `raw-leaves`, `cid-version`): kubo's defaults without them
 * (IPIP-499's `unixfs-v0-2015`), IPIP-499's `unixfs-v1-2025` for 1 MiB chunks and 1024 links, and
 * a 400 for any layout it does not import.
 */
import { importer } from "ipfs-unixfs-importer"
import { afterAll, beforeEach, describe, expect, it } from "vitest"
import { startMockNetwork } from "../../src/node.ts"
import { pseudoRandomBytes } from "../../src/testing/Bytes.ts"
import { addFile } from "../support/upload.ts"

const running = startMockNetwork({ onUnhandledFrame: "error" })
afterAll(() => running.close())
let apiKey: string
beforeEach(() => {
  running.network.reset()
  apiKey = running.network.seedAccount("0x00000000000000000000000000000000000000ab", {
    dataLimit: 64 * 1024 * 1024
  }).apiKey
})

const MiB = 1024 * 1024
const V1_2025 = "cid-version=1&raw-leaves=true&chunker=size-1048576&max-file-links=1024"

const upload = async (bytes: Uint8Array, query: string) =>
  addFile(apiKey, "f.bin", new Blob([bytes as BlobPart]), { query })

/** The importer's own CID of `bytes` under `profile` (raw leaves with CID v1, as kubo), without the node's leaf handling. */
const importerCid = async (bytes: Uint8Array, profile: "unixfs-v0-2015" | "unixfs-v1-2025", cidVersion: 0 | 1) => {
  const blockstore = { put: async () => undefined }
  let last = ""
  for await (const entry of importer([{ content: bytes }], blockstore as never, {
    profile,
    cidVersion,
    rawLeaves: cidVersion === 1
  })) {
    last = entry.cid.toString()
  }
  return last
}

describe("the layout of the add query", () => {
  it("hello world under unixfs-v1-2025 is IPIP-499's vector", async () => {
    const response = await upload(new TextEncoder().encode("hello world"), V1_2025)
    expect(((await response.json()) as { Hash: string }).Hash).toBe(
      "bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e"
    )
  })

  it("1 MiB + 1 byte: two 1 MiB-chunk leaves under unixfs-v1-2025, kubo's 256 KiB chunks without a chunker", async () => {
    const bytes = pseudoRandomBytes(MiB + 1, 5)
    const modern = (await (await upload(bytes, V1_2025)).json()) as { Hash: string }
    expect(modern.Hash).toBe(await importerCid(bytes, "unixfs-v1-2025", 1))
    const legacy = (await (await upload(bytes, "cid-version=1")).json()) as { Hash: string }
    expect(legacy.Hash).toBe(await importerCid(bytes, "unixfs-v0-2015", 1))
    expect(legacy.Hash).not.toBe(modern.Hash)
  })

  it("a layout the node does not import is refused with 400, naming the two it does", async () => {
    const bytes = new TextEncoder().encode("x")
    const halfway = await upload(bytes, "cid-version=1&chunker=size-1048576")
    expect(halfway.status).toBe(400)
    expect(await halfway.text()).toContain(
      "chunker=size-1048576 with max-file-links=174 is no layout of this node: unixfs-v0-2015 (size-262144, 174) or unixfs-v1-2025 (size-1048576, 1024)"
    )
    const rabin = await upload(bytes, "cid-version=1&chunker=rabin")
    expect(rabin.status).toBe(400)
    expect(await rabin.text()).toContain("chunker must be size-<bytes>, got rabin")
    const trickle = await upload(bytes, "cid-version=1&trickle=true")
    expect(trickle.status).toBe(400)
    expect(await trickle.text()).toContain("this node imports balanced DAGs only")
  })
})
