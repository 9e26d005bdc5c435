/**
 * An encrypted upload is all-or-nothing across a crash. 30 encrypted uploads by the CLI, each in
 * its own process against the served network on disk, SIGKILLed at seeded points: while signing
 * in, when the body starts, after its first bytes were read, once the file is stored but before
 * the node answered, after k of the 5 shard saves (every later upload first repairs what the
 * earlier ones left, and may be killed in that repair). Then `lighthouse-effect repair`: every
 * file the account lists decrypts to its bytes, the others were never stored, and the journal is
 * empty.
 */
import { writeFile } from "node:fs/promises"
import * as nodePath from "node:path"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Harness, type StopPoint, startHarness, stop } from "./harness.ts"

let harness: Harness

beforeAll(async () => {
  harness = await startHarness()
}, 120_000)

afterAll(async () => {
  await harness?.close()
})

const points: ReadonlyArray<StopPoint | undefined> = [
  { at: "sign-in" },
  { at: "body-start" },
  { at: "body-read" },
  { at: "stored" },
  { at: "saves", done: 1 },
  { at: "saves", done: 3 },
  undefined
]

/** 30 stop points, every kind at least 4 times, in a seeded order. */
const plan = (seed: number): ReadonlyArray<StopPoint | undefined> => {
  const all = Array.from({ length: 30 }, (_, i) => points[i % points.length])
  const [order] = fc.sample(fc.shuffledSubarray(all, { minLength: 30, maxLength: 30 }), { seed, numRuns: 1 })
  return order!
}

describe("encrypted uploads killed at every point", () => {
  it("after repair, every listed file decrypts to its bytes and the journal is empty", async () => {
    const originals = new Map<string, Uint8Array>()
    const kills: Array<string> = []
    for (const [i, point] of plan(35).entries()) {
      const name = `file-${i}.bin`
      // Big enough that its body is still arriving when the node starts reading it.
      const bytes = new Uint8Array(256 * 1024 + i).map((_, j) => (j * 31 + i) & 0xff)
      originals.set(name, bytes)
      const path = nodePath.join(harness.stateHome, "..", name)
      await writeFile(path, bytes)
      const ran = await harness.cli(["upload", path, "--encrypted", "--json"], point, (child) => stop(child, "SIGKILL"))
      if (point === undefined) expect(ran.code, ran.stderr).toBe(0)
      else {
        expect(ran.signal, `${point.at}: ${ran.stderr}`).toBe("SIGKILL")
        kills.push(point.at)
      }
    }
    expect(new Set(kills)).toEqual(new Set(["sign-in", "body-start", "body-read", "stored", "saves"]))

    const repaired = await harness.cli(["repair", "--json"])
    expect(repaired.code, repaired.stderr).toBe(0)
    const { outcomes } = JSON.parse(repaired.stdout) as { outcomes: ReadonlyArray<{ outcome: string }> }
    expect(outcomes.every((o) => o.outcome === "saved" || o.outcome === "dropped")).toBe(true)
    expect(await harness.journalEntries()).toEqual([])

    const listed = await harness.listed()
    const names = new Set(listed.map((f) => f.fileName))
    // Acknowledged, or stored before the kill: listed. Killed before the node had the whole body: never stored.
    const fates = plan(35).map((point, i) => [`file-${i}.bin`, point?.at ?? "completed"] as const)
    for (const [name, fate] of fates) {
      if (fate === "completed" || fate === "stored") expect(names.has(name), `${name} (${fate})`).toBe(true)
      if (fate === "sign-in" || fate === "body-start" || fate === "body-read")
        expect(names.has(name), `${name} (${fate})`).toBe(false)
    }
    expect(listed.length).toBe(names.size)
    for (const file of listed) {
      expect(await harness.decrypt(file.cid), file.fileName).toEqual(originals.get(file.fileName))
    }
  }, 900_000)
})
