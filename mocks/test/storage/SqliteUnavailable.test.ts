/**
 * On a Node without `node:sqlite` (Node 20, 22 before 22.13) the simulated network still loads and
 * runs in memory; only a state directory needs it, and asking for one says in one line which Node
 * has it, before anything is written. The consumer test shows the same on a real Node 20.
 */
import { existsSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, expect, it, vi } from "vitest"
import { openNetworkStorage, SqliteUnavailable, startMockNetwork } from "../../src/node.ts"
import { loadSqlite, openSqliteState } from "../../src/storage/SqliteState.ts"

const directories: Array<string> = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true })
})
const stateDir = async () => {
  const directory = await mkdtemp(join(tmpdir(), "sqlite-unavailable-"))
  directories.push(directory)
  return join(directory, "state")
}

const expected = new SqliteUnavailable(process.versions.node)

/** A Node 20.16 – 22.12: `process.getBuiltinModule` has no `node:sqlite`. */
const withoutSqlite = () => vi.spyOn(process, "getBuiltinModule").mockImplementation(() => undefined)

it("names the Node a state directory needs, in one line", () => {
  expect(expected.message).toBe(
    `A state directory keeps the simulated network in node:sqlite, which needs Node ≥ 22.13 (this is Node ${process.versions.node}); leave out stateDir to keep it in memory`
  )
  expect(expected.message).not.toContain("\n")
  expect(expected.name).toBe("SqliteUnavailable")
})

it("a state directory on a Node without node:sqlite: SqliteUnavailable, and no directory made", async () => {
  withoutSqlite()
  const directory = await stateDir()
  expect(() => startMockNetwork({ stateDir: directory })).toThrow(expected)
  expect(() => openNetworkStorage(directory)).toThrow(SqliteUnavailable)
  expect(() => openSqliteState(join(directory, "state.sqlite"))).toThrow(expected)
  expect(existsSync(directory)).toBe(false)
})

it("on a Node without process.getBuiltinModule (before 20.16) too", () => {
  vi.spyOn(process, "getBuiltinModule", "get").mockReturnValue(undefined as never)
  expect(() => loadSqlite()).toThrow(expected)
})

it("the network without a state directory runs in memory there", async () => {
  withoutSqlite()
  const { close } = startMockNetwork({ onUnhandledFrame: "error" })
  try {
    const wallet = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"
    const response = await fetch(`https://api.lighthouse.storage/api/auth/get_message?publicKey=${wallet}`)
    expect(response.status).toBe(200)
    expect(await response.json()).toContain(wallet)
  } finally {
    close()
  }
})

it("loads node:sqlite where Node has it", () => {
  expect(typeof loadSqlite().DatabaseSync).toBe("function")
})
