/**
 * Every download option in every download mode, through the public API against the mock network
 * in this process: each option is honoured (the bytes are the content's, and what the option asks
 * shows on the wire or in the report) or refused before any request, as `InvalidArgument` with
 * its exact text. One table of options, one of modes: `stream`, `bytes`, `retrieve`, `toFile` and
 * `toFile` resumed, plain and decrypting. Real time: a stall is 200 ms.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Logger, type Scope, Stream } from "effect"
import { Download, FileCipher, Upload } from "lighthouse-effect"
import { alice, makeHarness } from "../upload/harness.ts"

const A = "https://gw-a.example"
const B = "https://gw-b.example"
const OTHER = "https://gw-other.example"
const GATEWAY = "https://gateway.lighthouse.storage"
const WALRUS = "https://gateway-walrus.lighthouse.storage"
const { network, log, layerWith } = makeHarness({ gateways: [A, B, OTHER], captureBodies: false })
// A body aborted half-way over msw's `fetch` trips an assertion inside undici; Node applications use node:http.
const layer = layerWith({}, "node:http")
const [faultsA] = network.gateways.map((gateway) => gateway.faults)
const gateway = { host: "gateway" } as const

const LEAF = 256 * 1024
const SIZE = LEAF + 10 * 1024
const plaintext = new Uint8Array(SIZE).map((_, i) => (i * 29 + (i >> 10)) & 0xff)
const KEY = "a1".repeat(32)
const RANGE = { offset: 1000, length: 200_000 }
/** `split`'s pieces: the file is three of them. */
const RANGE_SIZE = 100 * 1024

/** What a row downloads: its CID, the stored bytes, and the bytes expected. */
interface Content {
  readonly cid: string
  readonly stored: Uint8Array
  readonly expected: Uint8Array
}

/** Where a row's file is stored: alone, inside a folder (at `dir/file.bin`), or on Walrus. */
type Placement = "file" | "folder" | "walrus"

/** The file stored as `placement` says, plaintext or encrypted (with {@link KEY}); nothing logged yet. */
const uploaded = (placement: Placement, encrypted: boolean) =>
  Effect.gen(function* () {
    const apiKey = network.seedAccount(alice.address, {
      apiKey: "options-key",
      walrusDataLimit: 1024 * 1024 * 1024
    }).apiKey
    const upload = yield* Upload.Upload
    const stored = encrypted ? yield* FileCipher.encrypt(plaintext, KEY) : plaintext
    const entry =
      placement === "folder"
        ? yield* upload.folder(Upload.Input.files([Upload.Input.bytes(stored, "site/dir/file.bin")]), { apiKey })
        : yield* upload.buffer(stored, placement === "walrus" ? { apiKey, storageType: "walrus" } : { apiKey })
    log.length = 0
    return { cid: entry.Hash, stored, expected: plaintext } satisfies Content
  }).pipe(Effect.provide(layer))

const tempDir = Effect.acquireRelease(
  Effect.promise(() => fs.mkdtemp(nodePath.join(os.tmpdir(), "download-options-"))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

type AnyOptions = Download.ToFileOptions

/** A download mode: how it is called, and what it gives back (`report` when it has one). */
interface Mode {
  readonly name: string
  readonly operation: "stream" | "bytes" | "retrieve" | "toFile"
  readonly decrypting: boolean
  readonly resume: boolean
  readonly run: (
    cid: string,
    options: AnyOptions
  ) => Effect.Effect<{ readonly bytes: Uint8Array; readonly report?: Download.VerificationReport }, unknown, never>
}

/** The warnings a download logged (the test's, kept off the console). */
const warnings: Array<string> = []
const capture = Logger.make(({ message, logLevel }) => {
  if (logLevel === "Warn") warnings.push(Array.isArray(message) ? message.map(String).join(" ") : String(message))
})

const withDownload = <A>(f: (download: Download.Download["Service"]) => Effect.Effect<A, unknown, Scope.Scope>) =>
  Effect.gen(function* () {
    return yield* f(yield* Download.Download)
  }).pipe(Effect.scoped, Effect.provide(layer), Effect.provide(Logger.layer([capture])))

const intoFile = (resume: boolean) => (cid: string, options: AnyOptions) =>
  withDownload((download) =>
    Effect.gen(function* () {
      const target = nodePath.join(yield* tempDir, "out.bin")
      const report = yield* download.toFile(cid, target, { ...options, ...(resume ? { resume } : {}) })
      return { bytes: new Uint8Array(yield* Effect.promise(() => fs.readFile(target))), report }
    })
  )

const plainModes: ReadonlyArray<Mode> = [
  {
    name: "stream",
    operation: "stream",
    decrypting: false,
    resume: false,
    run: (cid, options) =>
      withDownload((download) =>
        Effect.map(Stream.runCollect(download.stream(cid, options as Download.Options)), (chunks) => ({
          bytes: new Uint8Array(Buffer.concat(chunks))
        }))
      )
  },
  {
    name: "bytes",
    operation: "bytes",
    decrypting: false,
    resume: false,
    run: (cid, options) => withDownload((download) => Effect.map(download.bytes(cid, options), (bytes) => ({ bytes })))
  },
  {
    name: "retrieve",
    operation: "retrieve",
    decrypting: false,
    resume: false,
    run: (cid, options) =>
      withDownload((download) =>
        Effect.map(download.retrieve(cid, options), ({ bytes, verification }) => ({ bytes, report: verification }))
      )
  },
  { name: "toFile", operation: "toFile", decrypting: false, resume: false, run: intoFile(false) },
  { name: "toFile resumed", operation: "toFile", decrypting: false, resume: true, run: intoFile(true) }
]

const decrypt = Download.masterKey(KEY)
const modes: ReadonlyArray<Mode> = [
  ...plainModes,
  ...plainModes
    .filter((mode) => mode.operation !== "stream")
    .map((mode) => ({
      ...mode,
      name: `${mode.name}, decrypting`,
      decrypting: true,
      run: (cid: string, options: AnyOptions) => mode.run(cid, { ...options, decrypt })
    }))
]

/** What a row expects of a mode: a check of the result, the failure the option leads to, or the exact refusal. */
type Expectation =
  | { readonly refused: string }
  | { readonly fails: (error: unknown) => void }
  | {
      readonly honoured: (
        result: { readonly bytes: Uint8Array; readonly report?: Download.VerificationReport },
        content: Content
      ) => void
    }

interface Row {
  readonly option: string
  /** Where the row's file is stored. @default "file" */
  readonly placement?: Placement
  readonly options: (mode: Mode) => AnyOptions
  readonly arrange?: () => void
  readonly expect: (mode: Mode) => Expectation
  /** The modes the row is about, when not all. */
  readonly modes?: (mode: Mode) => boolean
}

const refused = (mode: Mode, detail: string): Expectation => ({
  refused: `Invalid argument to Download.${mode.operation}: ${detail}`
})

const origins = () => new Set(log.map((request) => request.url.origin))
const formats = () => log.map((request) => request.url.searchParams.get("format")).filter((format) => format !== null)
const wholeContent = (result: { readonly bytes: Uint8Array }, content: Content) =>
  assert.deepStrictEqual(result.bytes, content.expected)

const rows: ReadonlyArray<Row> = [
  {
    option: "gateway",
    options: () => ({ gateway: OTHER }),
    arrange: () => network.faults.down(gateway),
    expect: () => ({
      honoured: (result, content) => {
        wholeContent(result, content)
        assert.isTrue(origins().has(OTHER))
      }
    })
  },
  {
    option: "path",
    placement: "folder",
    options: () => ({ path: "dir/file.bin" }),
    expect: () => ({ honoured: wholeContent })
  },
  {
    option: "storageType",
    placement: "walrus",
    options: () => ({ storageType: "walrus" }),
    expect: () => ({
      honoured: (result, content) => {
        wholeContent(result, content)
        assert.deepStrictEqual([...origins()], [WALRUS])
      }
    })
  },
  {
    option: "range",
    options: () => ({ range: RANGE }),
    expect: (mode) =>
      mode.resume && !mode.decrypting
        ? refused(
            mode,
            "resume goes on with a whole file: a range of a file that is not decrypted is downloaded anew; leave out resume or range"
          )
        : {
            honoured: (result, content) =>
              assert.deepStrictEqual(result.bytes, content.expected.subarray(RANGE.offset, RANGE.offset + RANGE.length))
          }
  },
  {
    option: "verification: off",
    options: () => ({ verification: "off" }),
    expect: () => ({
      honoured: (result, content) => {
        wholeContent(result, content)
        assert.isTrue(log.some((request) => request.url.pathname.startsWith("/api/v0/cat/")))
        assert.notInclude(formats(), "car")
        if (result.report !== undefined) assert.deepStrictEqual(result.report, { verified: false, reason: "off" })
      }
    })
  },
  {
    option: "verification: if-supported",
    options: () => ({ verification: "if-supported" }),
    arrange: () => network.faults.status({ host: "gateway", path: /^\/ipfs\// }, 501),
    expect: () => ({
      honoured: (result, content) => {
        wholeContent(result, content)
        assert.isTrue(log.some((request) => request.url.pathname.startsWith("/api/v0/cat/")))
        assert.match(
          warnings.join("\n"),
          /^Downloading \w+ unverified: The gateway cannot serve verifiable content: it answered 501/
        )
        if (result.report !== undefined) {
          assert.isFalse(result.report.verified)
          assert.match((result.report as { readonly reason: string }).reason, /501/)
        }
      }
    })
  },
  {
    option: "trustless: raw",
    options: () => ({ trustless: "raw" }),
    expect: () => ({
      honoured: (result, content) => {
        wholeContent(result, content)
        assert.include(formats(), "raw")
        assert.notInclude(formats(), "car")
      }
    })
  },
  {
    option: "sources",
    options: () => ({ sources: [A, B] }),
    arrange: () => faultsA!.down(gateway),
    expect: () => ({
      honoured: (result, content) => {
        wholeContent(result, content)
        assert.isFalse(origins().has(GATEWAY))
        if (result.report === undefined) return
        const [a, b] = result.report.sources!
        assert.deepStrictEqual(a, { gateway: A, bytes: 0, dropped: "no answer (network error)" })
        assert.deepStrictEqual(b, { gateway: B, bytes: content.stored.length })
      }
    })
  },
  {
    option: "strategy: race",
    options: () => ({ sources: [A, B], strategy: "race" }),
    // A's first answer would take a minute: only the race ends the download in time.
    arrange: () => faultsA!.slow(gateway, 60_000, { times: 1 }),
    expect: () => ({
      honoured: (result, content) => {
        wholeContent(result, content)
        if (result.report !== undefined) assert.strictEqual(result.report.sources![1]!.bytes, content.stored.length)
      }
    })
  },
  {
    option: "strategy: split, rangeSize, requestsPerSource, window",
    options: () => ({ sources: [A, B], strategy: "split", rangeSize: RANGE_SIZE, requestsPerSource: 1, window: LEAF }),
    expect: () => ({
      honoured: (result, content) => {
        wholeContent(result, content)
        const ranges = log.flatMap((request) => {
          const range = request.url.searchParams.get("entity-bytes")
          return range === null ? [] : [range.split(":").map(Number) as [number, number]]
        })
        assert.isAtLeast(ranges.length, 3)
        for (const [from, to] of ranges) assert.isAtMost(to - from + 1, RANGE_SIZE)
        assert.isTrue(origins().has(A) && origins().has(B))
      }
    })
  },
  {
    option: "stallTimeout",
    options: () => ({ stallTimeout: 200 }),
    arrange: () => network.faults.stall(gateway, 0),
    // The own gateway alone: its stall is its time-out, after 200 ms rather than 30 s.
    expect: () => ({
      fails: (error) => {
        const timedOut = error as { readonly _tag: string; readonly url: string; readonly timeoutMillis: number }
        assert.deepStrictEqual([timedOut._tag, timedOut.url, timedOut.timeoutMillis], ["RequestTimedOut", GATEWAY, 200])
      }
    })
  },
  {
    option: "rangeSize without split",
    options: () => ({ rangeSize: LEAF }),
    expect: (mode) => refused(mode, 'rangeSize shapes strategy "split", not "fallback"')
  },
  {
    option: "verification: off with several sources",
    options: () => ({ sources: [A, B], verification: "off" }),
    expect: (mode) =>
      refused(
        mode,
        `verification "off" reads one gateway's bytes as they come; with several sources every byte is verified: leave out verification, or name one source`
      )
  },
  {
    option: "verification: if-supported with split",
    options: () => ({ verification: "if-supported", strategy: "split" }),
    expect: (mode) =>
      refused(
        mode,
        `verification "if-supported" reads one gateway's bytes as they come, which strategy "split" cannot cut into verified ranges`
      )
  },
  {
    option: "trustless with verification: off",
    options: () => ({ trustless: "car", verification: "off" }),
    expect: (mode) =>
      refused(mode, `trustless chooses how verified blocks are asked for, and verification "off" verifies none`)
  },
  {
    option: "gateway with sources that do not name it",
    options: () => ({ gateway: OTHER, sources: [A] }),
    expect: (mode) =>
      refused(
        mode,
        `gateway chooses the download's own gateway, which the sources (${A}) do not name: add "gateway" to them`
      )
  },
  {
    option: "storageType with sources that do not name the gateway",
    options: () => ({ storageType: "walrus", sources: [A, B] }),
    expect: (mode) =>
      refused(
        mode,
        `storageType chooses the download's own gateway, which the sources (${A}, ${B}) do not name: add "gateway" to them`
      )
  },
  {
    option: "decrypt",
    modes: (mode) => mode.operation === "stream",
    options: () => ({ decrypt }),
    expect: (mode) => refused(mode, "stream gives the bytes as stored; decrypt with bytes, retrieve or toFile")
  },
  {
    option: "resume",
    modes: (mode) => mode.operation !== "toFile",
    options: () => ({ resume: true }),
    expect: (mode) => refused(mode, "resume is an option of toFile only")
  }
]

describe("every download option in every mode: honoured or refused", () => {
  for (const row of rows) {
    for (const mode of modes.filter(row.modes ?? (() => true))) {
      it.live(`${row.option} · ${mode.name}`, () =>
        Effect.gen(function* () {
          warnings.length = 0
          const content = yield* uploaded(row.placement ?? "file", mode.decrypting)
          row.arrange?.()
          const expectation = row.expect(mode)
          const result = yield* Effect.result(mode.run(content.cid, row.options(mode)))
          if ("honoured" in expectation) {
            if (result._tag === "Failure") return assert.fail(`expected the download, got ${String(result.failure)}`)
            return expectation.honoured(result.success, content)
          }
          if (result._tag !== "Failure") return assert.fail("expected the download to fail")
          if ("fails" in expectation) return expectation.fails(result.failure)
          const error = result.failure as { readonly _tag: string; readonly message: string }
          assert.deepStrictEqual([error._tag, error.message], ["InvalidArgument", expectation.refused])
          // Refused before any request.
          assert.strictEqual(log.length, 0)
        })
      )
    }
  }
})
