/**
 * IPIP-499's profiles (https://specs.ipfs.tech/ipips/ipip-0499/): the published vectors that can
 * be reproduced from their description (the `hello world` file and the empty directory; the
 * chunk-size, max-links and HAMT-threshold vectors were made from kubo's seeded random bytes and
 * names, which are not reproduced here), the layout every `add` states on the wire, the client's
 * CIDs equal to the simulated node's for sizes around both profiles' chunk boundaries, and a
 * mismatch that names the profile the node appears to have used (the bytes read again from their
 * source only then; a one-shot stream's layout is unknown).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Stream } from "effect"
import * as fc from "fast-check"
import { Verify } from "lighthouse-effect"
import { pseudoRandomBytes } from "lighthouse-effect/mocks/testing"
import { HttpResponse, http } from "msw"
import * as Upload from "../../src/Upload.ts"
import { alice, makeHarness } from "./harness.ts"

const { network, server, log, layer } = makeHarness({ captureBodies: false })
const { Input } = Upload

const KiB = 1024
const MiB = 1024 * KiB
const HELLO = new TextEncoder().encode("hello world")

const uploading = <A, E, R>(body: (upload: Upload.Service, apiKey: string) => Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const { apiKey } = network.seedAccount(alice.address, { apiKey: "test-api-key", dataLimit: 64 * MiB })
    return yield* body(yield* Upload.Upload, apiKey)
  }).pipe(Effect.provide(layer))

/** The root CID of one file of `bytes` under `settings`, computed by the client alone. */
const clientCid = (bytes: Uint8Array, settings: Verify.AddSettings) =>
  Verify.cidsOf([{ path: "file", content: Stream.make(bytes) }], settings).pipe(
    Effect.map((entries) => entries.at(-1)!.cid.toString())
  )

describe("IPIP-499's vectors", () => {
  it.effect("hello world: a raw leaf under unixfs-v1-2025, a dag-pb leaf under unixfs-v0-2015 (CID v0)", () =>
    Effect.gen(function* () {
      assert.strictEqual(
        yield* clientCid(HELLO, { cidVersion: 1, profile: "unixfs-v1-2025" }),
        "bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e"
      )
      assert.strictEqual(
        yield* clientCid(HELLO, { cidVersion: 0, profile: "unixfs-v0-2015" }),
        "Qmf412jQZiuVUtdgnB36FXFX7xg5V6KEbSJ4dpQuhkLyfD"
      )
    })
  )

  it.effect("the empty directory (the vectors the IPIP takes from the UnixFS specification)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const emptyDirectory = (settings: Verify.AddSettings) =>
          Effect.gen(function* () {
            const cids = yield* Verify.calculator(settings)
            yield* cids.directory("empty")
            return (yield* cids.entries).at(-1)!.cid.toString()
          })
        assert.strictEqual(
          yield* emptyDirectory({ cidVersion: 1, profile: "unixfs-v1-2025" }),
          "bafybeiczsscdsbs7ffqz55asqdf3smv6klcw3gofszvwlyarci47bgf354"
        )
        assert.strictEqual(
          yield* emptyDirectory({ cidVersion: 0, profile: "unixfs-v0-2015" }),
          "QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn"
        )
      })
    )
  )

  it.effect("through the simulated node: hello world uploaded with unixfs-v1-2025", () =>
    uploading((upload, apiKey) =>
      Effect.gen(function* () {
        const entry = yield* upload.file(Input.bytes(HELLO, "hello.txt"), { apiKey, profile: "unixfs-v1-2025" })
        assert.strictEqual(entry.Hash, "bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e")
      })
    )
  )
})

describe("the layout on the wire", () => {
  it.effect("each profile's chunker, raw leaves and file links in the add query", () =>
    uploading((upload, apiKey) =>
      Effect.gen(function* () {
        yield* upload.file(Input.bytes(HELLO, "a.txt"), { apiKey, profile: "unixfs-v1-2025" })
        yield* upload.file(Input.bytes(HELLO, "b.txt"), { apiKey, cidVersion: 0 })
        const queries = log.filter((entry) => entry.url.pathname === "/api/v0/add").map((entry) => entry.url.search)
        assert.deepStrictEqual(queries, [
          "?wrap-with-directory=false&cid-version=1&raw-leaves=true&chunker=size-1048576&max-file-links=1024&trickle=false",
          "?wrap-with-directory=false&cid-version=0&raw-leaves=false&chunker=size-262144&max-file-links=174&trickle=false"
        ])
      })
    )
  )
})

/** Sizes around the chunk boundaries of both profiles (256 KiB and 1 MiB), and small ones. */
const size = fc.oneof(
  fc.integer({ min: 0, max: 300 }),
  fc.constantFrom(256 * KiB, MiB, 2 * MiB, 3 * MiB).chain((edge) => fc.integer({ min: edge - 2, max: edge + 2 }))
)

describe("the client's CIDs are the simulated node's", () => {
  it.effect("for both profiles and both CID versions, around the chunk boundaries (a verified upload succeeds)", () =>
    uploading((upload, apiKey) =>
      Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            size,
            fc.nat(),
            fc.constantFrom(...Verify.PROFILES),
            fc.constantFrom<0 | 1>(0, 1),
            async (length, seed, profile, cidVersion) => {
              const bytes = pseudoRandomBytes(length, seed)
              const entry = await Effect.runPromise(
                upload.file(Input.bytes(bytes, "f.bin"), { apiKey, profile, cidVersion })
              )
              const expected = await Effect.runPromise(clientCid(bytes, { cidVersion, profile }))
              assert.strictEqual(entry.Hash, expected)
            }
          ),
          { numRuns: 24 }
        )
      )
    )
  )

  it.effect("the two profiles differ past 256 KiB, so the node did import with the profile asked", () =>
    Effect.gen(function* () {
      const bytes = pseudoRandomBytes(MiB + 1, 7)
      const legacy = yield* clientCid(bytes, { cidVersion: 1, profile: "unixfs-v0-2015" })
      const modern = yield* clientCid(bytes, { cidVersion: 1, profile: "unixfs-v1-2025" })
      assert.notStrictEqual(legacy, modern)
    })
  )
})

describe("a mismatch", () => {
  /** A node that lays every upload out with `profile`, whatever the request says. */
  const nodeUsing = (profile: Verify.Profile, bytes: Uint8Array) =>
    http.post("*/api/v0/add", async ({ request }) => {
      await request.arrayBuffer()
      const cid = await Effect.runPromise(clientCid(bytes, { cidVersion: 1, profile }))
      return HttpResponse.json({ Name: "f.bin", Hash: cid, Size: String(bytes.length) })
    })

  it.effect("still fails with CidMismatch, and names the profile the node appears to have used", () =>
    uploading((upload, apiKey) =>
      Effect.gen(function* () {
        const bytes = pseudoRandomBytes(300 * KiB, 3)
        server.use(nodeUsing("unixfs-v1-2025", bytes))
        const failed = yield* Effect.flip(upload.file(Input.bytes(bytes, "f.bin"), { apiKey }))
        const expected = yield* clientCid(bytes, { cidVersion: 1, profile: "unixfs-v0-2015" })
        const answered = yield* clientCid(bytes, { cidVersion: 1, profile: "unixfs-v1-2025" })
        assert.strictEqual(failed._tag, "CidMismatch")
        assert.strictEqual(
          failed.message,
          `The node answered CID ${answered} for "f.bin", but the bytes sent have CID ${expected}: the node appears to have laid them out with the unixfs-v1-2025 profile instead`
        )
      })
    ).pipe(Effect.ensuring(Effect.sync(() => server.resetHandlers())))
  )

  it.effect("an answer no profile explains names no layout", () =>
    uploading((upload, apiKey) =>
      Effect.gen(function* () {
        const bytes = pseudoRandomBytes(300 * KiB, 4)
        server.use(nodeUsing("unixfs-v0-2015", pseudoRandomBytes(10, 1)))
        const failed = yield* Effect.flip(
          upload.file(Input.bytes(bytes, "f.bin"), { apiKey, profile: "unixfs-v1-2025" })
        )
        const expected = yield* clientCid(bytes, { cidVersion: 1, profile: "unixfs-v1-2025" })
        const answered = yield* clientCid(pseudoRandomBytes(10, 1), { cidVersion: 1, profile: "unixfs-v0-2015" })
        assert.strictEqual(failed._tag, "CidMismatch")
        assert.strictEqual(
          failed.message,
          `The node answered CID ${answered} for "f.bin", but the bytes sent have CID ${expected}`
        )
      })
    ).pipe(Effect.ensuring(Effect.sync(() => server.resetHandlers())))
  )
  it.effect("a file on disk is read again on the mismatch, and the profile named", () =>
    uploading((upload, apiKey) =>
      Effect.scoped(
        Effect.gen(function* () {
          const fs = yield* FileSystem.FileSystem
          const file = `${yield* fs.makeTempDirectoryScoped()}/f.bin`
          const bytes = pseudoRandomBytes(300 * KiB, 5)
          yield* fs.writeFile(file, bytes)
          server.use(nodeUsing("unixfs-v1-2025", bytes))
          const failed = yield* Effect.flip(upload.file(Input.path(file), { apiKey }))
          assert.strictEqual(failed._tag, "CidMismatch")
          if (failed._tag !== "CidMismatch") return
          assert.strictEqual(failed.layout, "unixfs-v1-2025")
        })
      )
    ).pipe(Effect.ensuring(Effect.sync(() => server.resetHandlers())))
  )

  it.effect("a one-shot stream is not kept to tell: the layout is unknown", () =>
    uploading((upload, apiKey) =>
      Effect.gen(function* () {
        const bytes = pseudoRandomBytes(300 * KiB, 6)
        server.use(nodeUsing("unixfs-v1-2025", bytes))
        const once = new Blob([new Uint8Array(bytes)]).stream()
        const failed = yield* Effect.flip(upload.file(Input.stream(once, { name: "f.bin" }), { apiKey }))
        const expected = yield* clientCid(bytes, { cidVersion: 1, profile: "unixfs-v0-2015" })
        const answered = yield* clientCid(bytes, { cidVersion: 1, profile: "unixfs-v1-2025" })
        assert.strictEqual(
          failed.message,
          `The node answered CID ${answered} for "f.bin", but the bytes sent have CID ${expected}: the layout the node used is unknown (the bytes cannot be read again to tell)`
        )
      })
    ).pipe(Effect.ensuring(Effect.sync(() => server.resetHandlers())))
  )

  it.effect("the bytes are read again only on a mismatch: a verified upload reads its Blob once", () =>
    uploading((upload, apiKey) =>
      Effect.gen(function* () {
        const bytes = pseudoRandomBytes(300 * KiB, 8)
        let reads = 0
        class CountedBlob extends Blob {
          override stream() {
            reads += 1
            return super.stream()
          }
        }
        yield* upload.file(Input.blob(new CountedBlob([new Uint8Array(bytes)]), { name: "f.bin" }), { apiKey })
        assert.strictEqual(reads, 1)
        reads = 0
        server.use(nodeUsing("unixfs-v1-2025", bytes))
        const failed = yield* Effect.flip(
          upload.file(Input.blob(new CountedBlob([new Uint8Array(bytes)]), { name: "f.bin" }), { apiKey })
        )
        assert.strictEqual(failed._tag === "CidMismatch" ? failed.layout : failed._tag, "unixfs-v1-2025")
        assert.strictEqual(reads, 2)
      })
    ).pipe(Effect.ensuring(Effect.sync(() => server.resetHandlers())))
  )
})
