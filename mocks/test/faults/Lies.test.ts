/**
 * The gateway's trustless answers, faithful and lying: a CAR the client's verifier accepts as the
 * file (whole, a range, a file in a folder), and each lie caught as the problem it is; the node's
 * lie replaces every CID of its answer.
 */
import { Effect, Stream } from "effect"
import { type Errors, Verify } from "lighthouse-effect"
import { CID } from "multiformats/cid"
import { describe, expect, it } from "vitest"
import { type GatewayLie, GatewayLies, OTHER_FILE, tellLie } from "../../src/faults/Lies.ts"
import { pathGatewayResponse } from "../../src/gateway/PathGateway.ts"
import { parseCid } from "../../src/http/Request.ts"
import { type BlockStorage, memoryBlocks } from "../../src/storage/Blocks.ts"
import { ContentStore } from "../../src/storage/ContentStore.ts"
import { addAll } from "../../src/storage/Unixfs.ts"

const bytes = new Uint8Array(700 * 1024).map((_, i) => (i * 7 + (i >> 10)) & 0xff)

const stored = async (cidVersion: 0 | 1) => {
  const storage = memoryBlocks()
  const staging = new ContentStore(storage).staging()
  let root: CID | undefined
  const files = [
    { path: "dir/big.bin", content: [bytes] },
    { path: "dir/small.txt", content: [OTHER_FILE] }
  ]
  for await (const entry of addAll(files, staging, { cidVersion })) root = entry.cid
  staging.commit()
  return { storage, root: root! }
}

/** What the mock gateway answers for a trustless request. */
const gateway = (storage: BlockStorage, request: Request) =>
  pathGatewayResponse(request, { blocks: storage.blocks, parseCid, resolveName: async () => undefined })

/** A trustless request as the client makes it (its `Accept` asks for duplicates). */
const answer = (storage: BlockStorage, root: CID, path: Array<string>, query = "") =>
  gateway(
    storage,
    new Request(`https://gateway.test/ipfs/${root}/${path.join("/")}?format=car${query}`, {
      headers: { accept: Verify.CAR_ACCEPT }
    })
  )

type Outcome = { readonly ok: Uint8Array } | { readonly failed: Errors.ContentVerificationFailed }

const verified = async (
  response: Response,
  root: CID,
  path: Array<string>,
  range?: { offset: number; length: number } | undefined
): Promise<Outcome> => {
  const body = Stream.fromReadableStream({ evaluate: () => response.body!, onError: (e) => new Error(String(e)) })
  return Effect.runPromise(
    Stream.mkUint8Array(Verify.verifyCar(body, { root, path, range })).pipe(
      Effect.map((out): Outcome => ({ ok: out })),
      Effect.catchTag("ContentVerificationFailed", (failed) => Effect.succeed<Outcome>({ failed }))
    )
  )
}

const expectedProblem: Record<GatewayLie, string> = {
  "flip-byte": "block-hash-mismatch",
  "drop-block": "missing-block",
  "extra-block": "extra-block",
  "other-file": "unexpected-block",
  truncate: "truncated"
}

describe("trustless answers", () => {
  it("a file in a folder, whole and by range, verifies to its bytes", async () => {
    for (const version of [0, 1] as const) {
      const { storage, root } = await stored(version)
      const whole = await verified(await answer(storage, root, ["big.bin"]), root, ["big.bin"])
      expect(whole).toEqual({ ok: bytes })
      const ranged = await verified(
        await answer(storage, root, ["big.bin"], "&dag-scope=entity&entity-bytes=300000:300099"),
        root,
        ["big.bin"],
        { offset: 300_000, length: 100 }
      )
      expect(ranged).toEqual({ ok: bytes.subarray(300_000, 300_100) })
    }
  })

  it("the answer's headers: a DFS CAR with duplicates as the client asks, or dups=n when asked", async () => {
    const { storage, root } = await stored(1)
    expect((await answer(storage, root, ["small.txt"])).headers.get("content-type")).toBe(
      "application/vnd.ipld.car; version=1; order=dfs; dups=y"
    )
    const noDuplicates = (path: string) =>
      gateway(
        storage,
        new Request(`https://gateway.test/ipfs/${root}${path}`, {
          headers: { accept: "application/vnd.ipld.car; dups=n" }
        })
      )
    expect((await noDuplicates("")).headers.get("content-type")).toBe(
      "application/vnd.ipld.car; version=1; order=dfs; dups=n"
    )
    expect((await noDuplicates("/nope")).status).toBe(404)
  })
})

describe("lies", () => {
  for (const lie of GatewayLies) {
    it(`${lie}: the verifier names the problem and gives no bytes`, async () => {
      for (const version of [0, 1] as const) {
        const { storage, root } = await stored(version)
        const lied = await tellLie(lie, await answer(storage, root, ["big.bin"]))
        const outcome = await verified(lied, root, ["big.bin"])
        expect("failed" in outcome && outcome.failed.problem).toBe(expectedProblem[lie])
      }
    })
  }

  it("wrong-cid: every CID of the node's answer is another, of the same version", async () => {
    const answerOf = (body: unknown) =>
      new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } })
    const v0 = "QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o"
    const v1 = "bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4"
    const single = await (await tellLie("wrong-cid", answerOf({ Name: "a", Hash: v0, Size: "20" }))).json()
    expect(single.Hash).not.toBe(v0)
    expect(CID.parse(single.Hash).version).toBe(0)
    const array = await (await tellLie("wrong-cid", answerOf([{ Name: "a", Hash: v1, Size: "12" }]))).json()
    expect(CID.parse(array[0].Hash).version).toBe(1)
    expect(array[0].Hash).not.toBe(v1)
    const car = await (
      await tellLie("wrong-cid", answerOf({ Root: { Cid: { "/": v1 } }, Name: "x.car", Hash: v1, Size: "1" }))
    ).json()
    expect(car.Root.Cid["/"]).toBe(car.Hash)
    expect(car.Hash).not.toBe(v1)
  })
})
