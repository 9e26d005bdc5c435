/**
 * On a Node that lacks what a part of the simulated network needs, the entry points still load,
 * and the part asked for says in one line which Node has it, before anything is started or
 * written: a state directory without `node:sqlite` (Node 20, 22 before 22.13), msw's interception
 * without `Promise.withResolvers` (Node 20). Without a state directory the network runs in memory
 * there. The consumer test shows the same on a real Node 20.
 */
import { existsSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it, vi } from "vitest"
import { openNetworkStorage, startMockNetwork, UnsupportedNode } from "../src/node.ts"
import { serveMockNetwork } from "../src/server/serve.ts"
import { loadSqlite, openSqliteState } from "../src/storage/SqliteState.ts"

const directories: Array<string> = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true })
})
const stateDir = async () => {
  const directory = await mkdtemp(join(tmpdir(), "node-support-"))
  directories.push(directory)
  return join(directory, "state")
}

const node = process.versions.node
const noSqlite = `A state directory needs Node ≥ 22.13 for node:sqlite (this is Node ${node}); without stateDir the simulated network keeps its state in memory`
const noInterception = `startMockNetwork needs Node ≥ 22.12 for msw 3, which intercepts requests with Promise.withResolvers (this is Node ${node})`

/** A Node 20.16 – 22.12: `process.getBuiltinModule` has no `node:sqlite`. */
const withoutSqlite = () => vi.spyOn(process, "getBuiltinModule").mockImplementation(() => undefined)

/** Runs `body` as on a Node whose `target` has no `key` (Node 20's `Promise`, say). */
const without = <A>(target: object, key: string, body: () => A): A => {
  const descriptor = Object.getOwnPropertyDescriptor(target, key)!
  Reflect.deleteProperty(target, key)
  try {
    return body()
  } finally {
    Object.defineProperty(target, key, descriptor)
  }
}

describe("a state directory", () => {
  it("on a Node without node:sqlite: one line naming Node 22.13, and no directory made", async () => {
    withoutSqlite()
    const directory = await stateDir()
    const thrown = (() => {
      try {
        openNetworkStorage(directory)
      } catch (error) {
        return error
      }
    })()
    expect(thrown).toBeInstanceOf(UnsupportedNode)
    expect(thrown).toMatchObject({ name: "UnsupportedNode", needs: "22.13", message: noSqlite })
    expect(() => startMockNetwork({ stateDir: directory })).toThrow(noSqlite)
    await expect(serveMockNetwork({ stateDir: directory })).rejects.toThrow(noSqlite)
    expect(() => openSqliteState(join(directory, "state.sqlite"))).toThrow(noSqlite)
    expect(existsSync(directory)).toBe(false)
  })

  it("on a Node without process.getBuiltinModule (before 20.16) too", () => {
    expect(() => without(process, "getBuiltinModule", loadSqlite)).toThrow(noSqlite)
  })

  it("loads node:sqlite where Node has it", () => {
    expect(typeof loadSqlite().DatabaseSync).toBe("function")
  })
})

describe("startMockNetwork", () => {
  it("without a state directory runs in memory on a Node without node:sqlite", async () => {
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

  it("on a Node msw cannot intercept on: one line naming Node 22.12", () => {
    expect(() => without(Promise, "withResolvers", () => startMockNetwork({ onUnhandledFrame: "error" }))).toThrow(
      noInterception
    )
  })
})
