/**
 * `--progress ndjson` in process against the in-process mock network: upload and download report
 * progress as one JSON event per line on stderr and end with a final event, while stdout keeps the
 * one JSON result (or the content); without the flag and without a terminal, stderr stays empty.
 */
import { readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { type RunningMockNetwork, startMockNetwork } from "lighthouse-effect/mocks/node"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshConfigHome, json, run } from "./support/commands.ts"

let mock: RunningMockNetwork
beforeAll(() => {
  mock = startMockNetwork({ onUnhandledFrame: "error" })
})
afterAll(() => mock.close())

interface ProgressEvent {
  readonly event: string
  readonly bytes: number
  readonly total: number | null
}

const events = (stderr: string): ReadonlyArray<ProgressEvent> =>
  stderr
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as ProgressEvent)

/**
 * A saved API key (the mock's seeded account) and a file of varied bytes over three of the upload's
 * 1 MiB reads (progress moves once a read).
 */
const setup = async () => {
  const home = await freshConfigHome()
  const account = mock.network.seedAccount("0x0000000000000000000000000000000000000abc", {})
  const env = { LIGHTHOUSE_API_KEY: account.apiKey, XDG_CONFIG_HOME: home }
  const bytes = Uint8Array.from({ length: 3 * 1024 * 1024 + 5 }, (_, i) => (i * 31) % 251)
  const file = join(home, "big.bin")
  await writeFile(file, bytes)
  return { env, home, file, size: bytes.length }
}

describe("--progress ndjson", () => {
  it("upload: progress events up to the total, then done; stdout holds only the result", async () => {
    const { env, file, size } = await setup()
    const quiet = await run(["upload", file, "--json"], env)
    expect(quiet).toMatchObject({ code: 0, stderr: "" })
    const ran = await run(["upload", file, "--progress", "ndjson", "--json"], env)
    expect(ran.code, ran.stderr).toBe(0)
    expect(json(ran)).toMatchObject({ name: "big.bin", storedBytes: expect.any(Number) })
    const seen = events(ran.stderr)
    const progress = seen.slice(0, -1)
    expect(progress.length).toBeGreaterThan(2)
    for (const e of progress) expect(e).toMatchObject({ event: "progress", total: size })
    expect(progress.map((e) => e.bytes)).toEqual([...progress.map((e) => e.bytes)].sort((a, b) => a - b))
    expect(progress.at(-1)?.bytes).toBe(size)
    expect(seen.at(-1)).toEqual({ event: "done", bytes: size, total: size })
  })

  it("download: to stdout, events as the content streams; to a file, the final event", async () => {
    const { env, home, file, size } = await setup()
    const { cid } = json(await run(["upload", file, "--json"], env)) as { cid: string }
    const piped = await run(["download", cid, "-o", "-", "--progress", "ndjson"], env)
    expect(piped.code, piped.stderr).toBe(0)
    expect(Buffer.compare(piped.stdoutBytes, await readFile(file))).toBe(0)
    const streamed = events(piped.stderr)
    expect(streamed.length).toBeGreaterThan(2)
    for (const e of streamed.slice(0, -1)) expect(e).toMatchObject({ event: "progress", total: null })
    expect(streamed.at(-1)).toEqual({ event: "done", bytes: size, total: size })

    const target = join(home, "copy.bin")
    const saved = await run(["download", cid, "-o", target, "--progress", "ndjson", "--json"], env)
    expect(saved.code, saved.stderr).toBe(0)
    expect(events(saved.stderr).at(-1)).toEqual({ event: "done", bytes: size, total: size })
    expect(json(saved)).toEqual({ cid, output: target, bytes: size, verification: { verified: true } })
  })

  it("download to a file: the bytes written are reported as they arrive (not only at the end), without --resume", async () => {
    const { env, home, file, size } = await setup()
    const { cid } = json(await run(["upload", file, "--json"], env)) as { cid: string }
    // About 1.5 s for the file's 3 MiB: several 250 ms reports fall inside it.
    const slowed = mock.network.faults.rate({ host: "gateway" }, 2 * 1024 * 1024)
    const target = join(home, "slow.bin")
    const ran = await run(["download", cid, "-o", target, "--progress", "ndjson", "--json"], env)
    mock.network.faults.remove(slowed)
    expect(ran.code, ran.stderr).toBe(0)
    const seen = events(ran.stderr)
    const progress = seen.slice(0, -1)
    expect(progress.length).toBeGreaterThan(0)
    for (const e of progress) expect(e).toMatchObject({ event: "progress", total: null })
    const bytes = progress.map((e) => e.bytes)
    expect(bytes).toEqual([...bytes].sort((a, b) => a - b))
    expect(bytes[0]).toBeGreaterThan(0)
    expect(bytes.at(-1)).toBeLessThanOrEqual(size)
    expect(seen.at(-1)).toEqual({ event: "done", bytes: size, total: size })
    expect(Buffer.compare(await readFile(target), await readFile(file))).toBe(0)
  })

  it("a download that fails ends with a failed event, and exits 1", async () => {
    const { env, file } = await setup()
    const { cid } = json(await run(["upload", file, "--json"], env)) as { cid: string }
    const lie = mock.network.faults.lie({ host: "gateway" }, "other-file")
    const ran = await run(["cat", cid, "--progress", "ndjson"], env)
    mock.network.faults.remove(lie)
    expect(ran.code).toBe(1)
    const lines = ran.stderr.trimEnd().split("\n")
    const final = JSON.parse(lines.at(-2) ?? "") as ProgressEvent
    expect(final).toMatchObject({ event: "failed", total: null })
    expect(lines.at(-1)).toMatch(new RegExp(`^Content ${cid} failed verification \\(unexpected-block\\)`))
  })
})
