/**
 * `dag/import` of a CAR whose links reach blocks it does not hold, on the served network: taken
 * exactly when every block under its roots is in the CAR or already on the node (a property over
 * random DAGs and random splits between the CAR and the store), refused with 400 and the first
 * missing block named otherwise, leaving nothing stored; `?pin-roots=false` takes blocks alone; a
 * network made with `partialCars: "refuse"` takes whole CARs only.
 */
import { CarWriter } from "@ipld/car"
import * as dagPb from "@ipld/dag-pb"
import fc from "fast-check"
import { CID } from "multiformats/cid"
import * as raw from "multiformats/codecs/raw"
import { sha256 } from "multiformats/hashes/sha2"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ServedMockNetwork, serveMockNetwork } from "../../src/server/serve.ts"

interface Block {
  readonly cid: CID
  readonly bytes: Uint8Array
}

const encoder = new TextEncoder()

const leaf = async (text: string): Promise<Block> => {
  const bytes = encoder.encode(text)
  return { cid: CID.createV1(raw.code, await sha256.digest(bytes)), bytes }
}

const node = async (links: ReadonlyArray<readonly [string, Block]>): Promise<Block> => {
  const bytes = dagPb.encode(
    dagPb.prepare({ Links: links.map(([name, b]) => ({ Name: name, Hash: b.cid, Tsize: b.bytes.length })) })
  )
  return { cid: CID.createV1(dagPb.code, await sha256.digest(bytes)), bytes }
}

const carOf = async (root: CID, blocks: ReadonlyArray<Block>): Promise<Blob> => {
  const { writer, out } = CarWriter.create([root])
  const chunks: Array<Uint8Array> = []
  const reading = (async () => {
    for await (const chunk of out) chunks.push(chunk)
  })()
  for (const block of blocks) await writer.put(block)
  await writer.close()
  await reading
  return new Blob(chunks as Array<BlobPart>)
}

let served: ServedMockNetwork
let refusing: ServedMockNetwork
beforeAll(async () => {
  served = await serveMockNetwork()
  refusing = await serveMockNetwork({ partialCars: "refuse" })
})
afterAll(async () => {
  await served.close()
  await refusing.close()
})

const seed = (on: ServedMockNetwork) => on.network.seedAccount(privateKeyToAccount(generatePrivateKey()).address).apiKey

const importCar = async (on: ServedMockNetwork, apiKey: string, car: Blob, query = "") => {
  const form = new FormData()
  form.append("file", car, "data.car")
  const response = await fetch(`${on.urls.node}/api/v0/dag/import${query}`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}` },
    body: form
  })
  return { status: response.status, body: (await response.json()) as { error?: string } }
}

/** root → a (leaf), sub → b (leaf), c (leaf). */
const tree = async (tag: string) => {
  const a = await leaf(`${tag} a`)
  const b = await leaf(`${tag} b`)
  const c = await leaf(`${tag} c`)
  const sub = await node([
    ["b", b],
    ["c", c]
  ])
  const root = await node([
    ["a", a],
    ["sub", sub]
  ])
  return { a, b, c, sub, root }
}

describe("dag/import of a partial CAR", () => {
  it("is refused while a linked block is missing, naming it and its parent, and leaves nothing stored", async () => {
    const apiKey = seed(served)
    const { a, b, c, sub, root } = await tree("refused")
    const before = await served.network.state.content.blockCount()
    const refused = await importCar(served, apiKey, await carOf(root.cid, [root, a, sub, b]))
    expect(refused).toEqual({
      status: 400,
      body: {
        error: `the CAR's DAG is incomplete: block ${c.cid} (linked from ${sub.cid}) is neither in the CAR nor on the node`
      }
    })
    expect(await served.network.state.content.blockCount()).toBe(before)
    expect(await served.network.state.content.has(a.cid)).toBe(false)
  })

  it("is taken once the node holds what it lacks, down to the last block under a stored node", async () => {
    const apiKey = seed(served)
    const { a, b, c, sub, root } = await tree("taken")
    // The sub-folder's node alone, without its leaves: stored, but not whole.
    expect((await importCar(served, apiKey, await carOf(sub.cid, [sub]), "?pin-roots=false")).status).toBe(200)
    const deep = await importCar(served, apiKey, await carOf(root.cid, [root, a]))
    expect(deep.status).toBe(400)
    expect(deep.body.error).toMatch(/^the CAR's DAG is incomplete: block \S+ \(linked from \S+\) is neither/)
    expect(deep.body.error).toContain(`(linked from ${sub.cid})`)

    expect((await importCar(served, apiKey, await carOf(sub.cid, [sub, b, c]))).status).toBe(200)
    const partial = await importCar(served, apiKey, await carOf(root.cid, [root, a]))
    expect(partial.status).toBe(200)
    expect(partial.body).toMatchObject({ Root: { Cid: { "/": root.cid.toString() } }, Hash: root.cid.toString() })
    // The root alone: everything under it is stored.
    expect((await importCar(served, apiKey, await carOf(root.cid, [root]))).status).toBe(200)
    for (const block of [root, a, sub, b, c]) expect(await served.network.state.content.has(block.cid)).toBe(true)
  })

  it("pin-roots takes true or false only", async () => {
    const { a } = await tree("flag")
    const answer = await importCar(served, seed(served), await carOf(a.cid, [a]), "?pin-roots=maybe")
    expect(answer).toEqual({ status: 400, body: { error: "pin-roots must be true or false, got maybe" } })
  })

  it("is taken exactly when every block under the root is in the CAR or stored (any DAG, any split)", async () => {
    const apiKey = seed(served)
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
        fc.array(fc.constantFrom("car", "stored", "nowhere"), { minLength: 13, maxLength: 13 }),
        async (shape, places) => {
          run += 1
          // Folders of leaves; each block placed in the CAR, on the node beforehand, or nowhere.
          const blocks: Array<Block> = []
          const folders: Array<readonly [string, Block]> = []
          for (const [f, leaves] of shape.entries()) {
            const children: Array<readonly [string, Block]> = []
            for (const [l] of leaves.entries()) children.push([`l${l}`, await leaf(`run ${run} ${f}/${l}`)])
            const folder = await node(children)
            blocks.push(...children.map(([, b]) => b), folder)
            folders.push([`f${f}`, folder])
          }
          const root = await node(folders)
          const placeOf = (index: number) => places[index % places.length]!
          const stored = blocks.filter((_, index) => placeOf(index) === "stored")
          const inCar = blocks.filter((_, index) => placeOf(index) === "car")
          for (const block of stored) {
            expect((await importCar(served, apiKey, await carOf(block.cid, [block]), "?pin-roots=false")).status).toBe(
              200
            )
          }
          const answer = await importCar(served, apiKey, await carOf(root.cid, [root, ...inCar]))
          const whole = blocks.every((_, index) => placeOf(index) !== "nowhere")
          expect(answer.status).toBe(whole ? 200 : 400)
        }
      ),
      { numRuns: 30 }
    )
  })
})

describe("a node that refuses partial CARs", () => {
  it("refuses a CAR that leaves out a block it holds, and takes the whole DAG", async () => {
    const apiKey = seed(refusing)
    const { a, b, c, sub, root } = await tree("whole only")
    expect((await importCar(refusing, apiKey, await carOf(sub.cid, [sub, b, c]))).status).toBe(200)
    const refused = await importCar(refusing, apiKey, await carOf(root.cid, [root, a]))
    expect(refused).toEqual({
      status: 400,
      body: { error: `partial CARs are not accepted: block ${sub.cid} (linked from ${root.cid}) is not in the CAR` }
    })
    expect((await importCar(refusing, apiKey, await carOf(root.cid, [root, a, sub, b, c]))).status).toBe(200)
  })
})
