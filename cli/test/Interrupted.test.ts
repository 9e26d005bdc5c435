/**
 * Ctrl-C during `download CID -o FILE --resume`, through the executable: the gateway (one of
 * `dev`'s, stalled after its first MiBs) leaves a download hanging with part of the file verified
 * in `FILE.partial`, its growth reported as `--progress ndjson` events; SIGINT then ends it with
 * 130, one JSON value on stdout saying the bytes on disk and how to go on, and the final ndjson
 * event saying the same bytes.
 */
import { stat, writeFile } from "node:fs/promises"
import * as nodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { devAccount } from "./support/account.ts"
import { buildExecutable, type Dev, type Executable, runExecutable, startDev } from "./support/executable.ts"
import { completeLines, startExecutable } from "./support/processes.ts"

let executable: Executable
let dev: Dev | undefined

beforeAll(async () => {
  executable = await buildExecutable()
  dev = await startDev(executable, ["--gateway", "stall-after=2560KiB"])
}, 120_000)

afterAll(async () => {
  await dev?.stop()
  await executable?.remove()
})

describe("an interrupted download into a file", () => {
  it("reports progress, then exits 130 with one JSON value and a final ndjson event, both saying the bytes in FILE.partial", async () => {
    const { home, env } = await devAccount(executable, dev!)
    const served = dev!.served as { readonly gateways: ReadonlyArray<{ readonly url: string }> }
    const source = nodePath.join(home, "big.bin")
    await writeFile(
      source,
      Uint8Array.from({ length: 6 * 1024 * 1024 }, (_, i) => (i * 131) % 251)
    )
    const uploaded = await runExecutable(executable, ["upload", source, "--json"], env)
    expect(uploaded.code, uploaded.stderr).toBe(0)
    const { cid } = JSON.parse(uploaded.stdout) as { cid: string }

    const target = nodePath.join(home, "copy.bin")
    const child = startExecutable(
      executable,
      ["download", cid, "-o", target, "--resume", "--json", "--progress", "ndjson"],
      { ...env, LIGHTHOUSE_GATEWAY_URL: served.gateways[0]!.url }
    )
    const eventsIn = (
      text: string
    ): ReadonlyArray<{ readonly event: string; readonly bytes: number; readonly total: number | null }> =>
      completeLines(text).map((line) => JSON.parse(line))
    // The first progress event (the partial file grew) says the download is under way: then Ctrl-C.
    await child.outputSatisfies("stderr", "a progress event", (stderr) =>
      eventsIn(stderr).some((e) => e.event === "progress")
    )
    const { code, stdout, stderr } = await child.signal("SIGINT")
    const events = eventsIn(stderr)
    expect(code, stderr).toBe(130)

    const onDisk = (await stat(`${target}.partial`)).size
    expect(onDisk).toBeGreaterThan(0)
    expect(onDisk).toBeLessThan(6 * 1024 * 1024)
    expect(JSON.parse(stdout)).toEqual({
      cid,
      output: target,
      interrupted: true,
      bytesOnDisk: onDisk,
      partial: `${target}.partial`,
      resumeWith: `lighthouse-effect download ${cid} -o ${target} --resume`
    })
    const progress = events.slice(0, -1)
    for (const e of progress) expect(e).toMatchObject({ event: "progress", total: null })
    expect(progress[0]!.bytes).toBeGreaterThan(0)
    expect(events.at(-1)).toEqual({ event: "interrupted", bytes: onDisk, total: null })
  })
})
