/**
 * The mock node's CIDs equal kubo's `ipfs add` for the same bytes and options. Expected values are
 * CIDs published by kubo users and projects (hello world, the empty file and directory, 1 MiB and
 * 100 MiB of zeros — the latter past 174 chunks, so two levels of the balanced layout — and a
 * 1 000 000-byte pseudo-random file added with CID v1), checked both on the importer settings and
 * through the upload route.
 */
import { CID } from "multiformats/cid"
import { afterAll, beforeEach, describe, expect, it } from "vitest"
import { startMockNetwork } from "../../src/node.ts"
import { ContentStore } from "../../src/storage/ContentStore.ts"
import { type AddSettings, addAll } from "../../src/storage/Unixfs.ts"
import { lcgMegabyte } from "../../src/testing/Bytes.ts"
import { addFile } from "../support/upload.ts"

const running = startMockNetwork({ onUnhandledFrame: "error" })
afterAll(() => running.close())
let apiKey: string
beforeEach(() => {
  running.network.reset()
  apiKey = running.network.seedAccount("0x00000000000000000000000000000000000000aa", {
    dataLimit: 200 * 1024 * 1024
  }).apiKey
})

const hello = new TextEncoder().encode("hello world\n")
const MiB = 1024 * 1024

const add = async (content: Uint8Array | undefined, settings: AddSettings, path = "file") => {
  let last: { cid: CID; size: bigint } | undefined
  const candidate = content === undefined ? { path } : { path, content }
  for await (const entry of addAll([candidate], new ContentStore().staging(), settings)) last = entry
  return last!
}

const upload = async (bytes: Uint8Array, query: string, name = "file") => {
  const response = await addFile(apiKey, name, new Blob([bytes as BlobPart]), { query })
  expect(response.status).toBe(200)
  return (await response.json()) as { Name: string; Hash: string; Size: string }
}

describe("kubo-identical CIDs", () => {
  it("hello world, CID v0 and v1", async () => {
    expect((await add(hello, { cidVersion: 0 })).cid.toString()).toBe("QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o")
    expect((await add(hello, { cidVersion: 1 })).cid.toString()).toBe(
      "bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4"
    )
    expect(await upload(hello, "cid-version=0", "hello.txt")).toEqual({
      Name: "hello.txt",
      Hash: "QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o",
      Size: "20"
    })
  })

  it("the empty file and the empty directory", async () => {
    expect((await add(new Uint8Array(), { cidVersion: 0 })).cid.toString()).toBe(
      "QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH"
    )
    expect((await add(undefined, { cidVersion: 0 }, "dir")).cid.toString()).toBe(
      "QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn"
    )
    expect((await upload(new Uint8Array(), "cid-version=0", "empty")).Hash).toBe(
      "QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH"
    )
    // kubo's HTTP clients send a directory as a part of type application/x-directory.
    const directory = new Blob([], { type: "application/x-directory" })
    const response = await addFile(apiKey, "emptydir", directory, { query: "cid-version=0" })
    expect(await response.json()).toEqual({
      Name: "emptydir",
      Hash: "QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn",
      Size: "4"
    })
  })

  it("more than one chunk: 1 MiB and 100 MiB of zeros (balanced, 174 links per node)", async () => {
    expect((await add(new Uint8Array(MiB), { cidVersion: 0 })).cid.toString()).toBe(
      "QmVkbauSDEaMP4Tkq6Epm9uW75mWm136n81YH8fGtfwdHU"
    )
    expect((await upload(new Uint8Array(MiB), "cid-version=0")).Hash).toBe(
      "QmVkbauSDEaMP4Tkq6Epm9uW75mWm136n81YH8fGtfwdHU"
    )
    expect((await add(new Uint8Array(100 * MiB), { cidVersion: 0 })).cid.toString()).toBe(
      "Qmca3PNFKuZnYkiVv1FpcV1AfDUm4qCSHoYjPTBqDAsyk8"
    )
  })

  it("CID v1 of a multi-chunk file (raw leaves)", async () => {
    const bytes = lcgMegabyte()
    expect((await add(bytes, { cidVersion: 1 })).cid.toString()).toBe(
      "bafybeiczwqoyribvfkrxcuhcjnwva43kuvcrl2h57ergkeszwguynobh5a"
    )
    expect((await upload(bytes, "cid-version=1")).Hash).toBe(
      "bafybeiczwqoyribvfkrxcuhcjnwva43kuvcrl2h57ergkeszwguynobh5a"
    )
  })

  it("v0 and v1 agree: a one-block file without raw leaves is the v0 node under a v1 CID", async () => {
    // (Past one block the links themselves become v1 CIDs, so the root bytes differ, as in kubo.)
    for (const bytes of [hello, new Uint8Array(200 * 1024).fill(9)]) {
      const v0 = await upload(bytes, "cid-version=0")
      const v1 = await upload(bytes, "cid-version=1&raw-leaves=false")
      expect(v1.Hash).toBe(CID.parse(v0.Hash).toV1().toString())
      expect(v1.Size).toBe(v0.Size)
    }
  })

  it("wrap-with-directory wraps a file in a directory that links it by name", async () => {
    const wrapped = await upload(hello, "cid-version=0&wrap-with-directory=true", "hello.txt")
    expect(wrapped.Name).toBe("")
    const listing = await running.network.state.content.list(CID.parse(wrapped.Hash))
    expect(listing.map((entry) => [entry.name, entry.cid.toString()])).toEqual([
      ["hello.txt", "QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o"]
    ])
  })
})
