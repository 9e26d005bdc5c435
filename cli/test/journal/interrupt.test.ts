/**
 * An encrypted upload by the CLI (its own process, the served network on disk) when the key nodes
 * go away between the upload and the save, and when Ctrl-C comes during the save.
 *
 * Key nodes 4 and 5 are stopped once the file is stored (the served network's `down` fault: their
 * connections are cut, as a stopped server's would be; the other nodes of the one served host stay
 * up): the CLI fails naming the CID, the nodes holding shards and `lighthouse-effect repair`, in
 * text and in `--json` (never the shards); the next upload fails before sending while they are
 * down; once they are back, the next upload finishes the earlier one first, and every file decrypts.
 *
 * SIGINT during the save: within the grace the save completes and `--json` prints one value with
 * the upload; past the grace the entry stays in the journal and one line says how to finish it.
 */
import { writeFile } from "node:fs/promises"
import * as nodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Harness, startHarness } from "./harness.ts"

let harness: Harness

beforeAll(async () => {
  harness = await startHarness()
}, 120_000)

afterAll(async () => {
  await harness?.close()
})

const file = async (name: string, text: string) => {
  const path = nodePath.join(harness.stateHome, "..", name)
  await writeFile(path, text)
  return path
}

describe("key nodes stopped mid-save, then started again", () => {
  it("names the CID, the nodes and repair; the next upload finishes it once they are back", async () => {
    const faults = harness.served.network.faults
    const stopNodes = async () => {
      faults.down({ host: "encryption", node: 4 })
      faults.down({ host: "encryption", node: 5 })
    }
    const first = await harness.cli(
      ["upload", await file("outage.txt", "kept through an outage"), "--encrypted", "--json"],
      { at: "stored" },
      stopNodes
    )
    expect(first.code, first.stderr).toBe(1)
    const { error } = JSON.parse(first.stdout) as {
      error: { _tag: string; message: string; pending: ReadonlyArray<Record<string, unknown>>; finish: string }
    }
    expect(error._tag).toBe("UploadUnfinished")
    expect(error.finish).toBe("lighthouse-effect repair")
    const [pending] = error.pending
    expect(pending).toMatchObject({ name: "outage.txt", savedNodes: [1, 2, 3] })
    const cid = pending!.cid as string
    expect(cid).toMatch(/^baf/)
    expect(error.message).toContain(`outage.txt is stored as ${cid}, shards saved on nodes [1, 2, 3] of 5`)
    expect(error.message).toContain("run `lighthouse-effect repair` to finish")
    expect(first.stdout).not.toMatch(/"key"|"index"/)
    expect(first.stderr.trim().split("\n")).toEqual([error.message])
    expect(await harness.journalEntries()).toHaveLength(1)

    // While they are down, nothing more is sent: the earlier entry cannot be finished.
    const blocked = await harness.cli(["upload", await file("blocked.txt", "not sent"), "--encrypted"])
    expect(blocked.code).toBe(1)
    expect(blocked.stderr).toContain("1 earlier encrypted upload(s) of this account could not be finished: outage.txt")
    expect(blocked.stderr).toContain("lighthouse-effect repair")

    faults.clear()
    const after = await harness.cli(["upload", await file("after.txt", "after the outage"), "--encrypted", "--json"])
    expect(after.code, after.stderr).toBe(0)
    expect(await harness.journalEntries()).toEqual([])
    expect(new TextDecoder().decode(await harness.decrypt(cid))).toBe("kept through an outage")
    const { cid: afterCid } = JSON.parse(after.stdout) as { cid: string }
    expect(new TextDecoder().decode(await harness.decrypt(afterCid))).toBe("after the outage")
    expect((await harness.listed()).map((f) => f.fileName).sort()).toEqual(["after.txt", "outage.txt"])
  }, 180_000)
})

describe("Ctrl-C during the save", () => {
  it("within the grace: the save completes, --json prints one value with the upload", async () => {
    const ran = await harness.cli(
      ["upload", await file("quick.txt", "saved despite ctrl-c"), "--encrypted", "--json"],
      { at: "saves", done: 2, release: true },
      async (child) => {
        child.kill("SIGINT")
      }
    )
    expect(ran.code, ran.stderr).toBe(130)
    const value = JSON.parse(ran.stdout) as {
      interrupted: boolean
      completed: ReadonlyArray<{ cid: string; name: string }>
      pending: ReadonlyArray<unknown>
    }
    expect(value).toMatchObject({ interrupted: true, pending: [] })
    expect(value.completed.map((c) => c.name)).toEqual(["quick.txt"])
    expect(await harness.journalEntries()).toEqual([])
    expect(new TextDecoder().decode(await harness.decrypt(value.completed[0]!.cid))).toBe("saved despite ctrl-c")
  }, 120_000)

  it("past the grace: the entry stays in the journal and one line says how to finish", async () => {
    const ran = await harness.cli(
      ["upload", await file("slow.txt", "finished by repair"), "--encrypted"],
      { at: "saves", done: 2 },
      async (child) => {
        child.kill("SIGINT")
      }
    )
    expect(ran.code).toBe(130)
    const lines = ran.stderr.trim().split("\n")
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(
      /^Interrupted: slow\.txt is stored as baf\w+; its key shards are kept in the journal: run `lighthouse-effect repair` to finish$/
    )
    expect(await harness.journalEntries()).toHaveLength(1)
    const repaired = await harness.cli(["repair"])
    expect(repaired.code, repaired.stderr).toBe(0)
    expect(repaired.stdout).toMatch(/^saved {4}baf\w+ {2}slow\.txt {2}\(key shards on all 5 nodes\)\n$/)
    const cid = /(baf\w+)/.exec(lines[0]!)![1]!
    expect(new TextDecoder().decode(await harness.decrypt(cid))).toBe("finished by repair")
    expect(await harness.journalEntries()).toEqual([])
  }, 120_000)
})
