/**
 * Imports run one way: core ← mocks ← (scripts, storybook, cli), with contracts' ABI modules usable
 * by all. Another area is reached only through the package's entry points (`lighthouse-effect/...`),
 * never by a relative path, by sources and tests alike; the folders of core and of mocks do not
 * import each other in a circle. And the map, docs/ARCHITECTURE.md, names every module of core and
 * every folder of mocks, and nothing that is gone.
 */
import { readdirSync, readFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"

const root = path.resolve(import.meta.dirname, "..", "..")
const areas = ["core", "mocks", "scripts", "storybook", "contracts", "cli"] as const
type Area = (typeof areas)[number]

/** The areas each area may import (besides itself). */
const allowed: Record<Area, ReadonlyArray<Area>> = {
  contracts: [],
  core: ["contracts"],
  mocks: ["core", "contracts"],
  scripts: ["mocks", "core", "contracts"],
  storybook: ["mocks", "core", "contracts"],
  cli: ["mocks", "core", "contracts"]
}

/** What an area's tests may import besides: the local network (and chain) they run against. */
const testsMayAlso: Partial<Record<Area, ReadonlyArray<Area>>> = {
  core: ["mocks"],
  contracts: ["mocks"]
}

/** Test code: anything under an area's `test/` folder. */
const isTest = (file: string): boolean => /^[^/]+\/test\//.test(file)

const requireNode = "tooling/requireNode.mjs"
const entryPointAreas: ReadonlyArray<Area> = ["scripts", "storybook", "cli"]

/** The area behind each package entry point. */
const entryArea = (specifier: string): Area | undefined => {
  if (specifier === "lighthouse-effect/contracts") return "contracts"
  if (specifier === "lighthouse-effect/mocks" || specifier.startsWith("lighthouse-effect/mocks/")) return "mocks"
  if (["lighthouse-effect", "lighthouse-effect/node", "lighthouse-effect/promise"].includes(specifier)) return "core"
  return undefined
}

const areaOf = (file: string): Area | undefined => areas.find((area) => file.startsWith(`${area}/`))

// Statements at the start of a line, so examples in doc comments (` * import …`) are not read.
const importPattern =
  /^(?:import|export)\b[^;"']*?\bfrom\s*["']([^"']+)["']|^import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm

const specifiersOf = (source: string): Array<string> =>
  [...source.matchAll(importPattern)].map((match) => match[1] ?? match[2] ?? match[3]!)

/**
 * The room of `file` in the floor plan of core/src or mocks/src: the folder directly under it, or,
 * for core, a file at its top (a service is a room of its own); undefined for mocks' entry files.
 */
const roomOf = (file: string): { readonly house: string; readonly room: string } | undefined => {
  const parts = file.split("/")
  if (parts[1] !== "src" || (parts[0] !== "core" && parts[0] !== "mocks")) return undefined
  if (parts.length > 3) return { house: `${parts[0]}/src`, room: parts[2]! }
  return parts[0] === "core" ? { house: "core/src", room: parts[2]! } : undefined
}

/** Whether `file` may import `to` (another area, by package name). */
const mayImport = (file: string, from: Area, to: Area): boolean =>
  allowed[from].includes(to) || (isTest(file) && (testsMayAlso[from] ?? []).includes(to))

/** Every import that runs the wrong way in `files` (project-relative path → source). */
const violations = (files: ReadonlyMap<string, string>): Array<string> => {
  const found: Array<string> = []
  const roomEdges = new Map<string, Map<string, Set<string>>>()
  for (const [file, source] of files) {
    const from = areaOf(file)
    if (from === undefined) continue
    for (const specifier of specifiersOf(source)) {
      let to: Area | undefined
      let target: string | undefined
      if (specifier.startsWith(".")) {
        target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier))
        to = areaOf(target)
        // The Node version guard runs first in every entry point: it is the repo's tooling, not code.
        if (to !== from && !(target === requireNode && entryPointAreas.includes(from))) {
          found.push(`${file}: relative import "${specifier}" leaves ${from}/`)
        }
      } else {
        to = entryArea(specifier)
      }
      if (to !== undefined && to !== from && !mayImport(file, from, to)) {
        found.push(`${file}: ${from} must not import ${to} ("${specifier}")`)
      }
      const fromRoom = roomOf(file)
      const toRoom = target === undefined ? undefined : roomOf(target)
      if (fromRoom !== undefined && toRoom?.house === fromRoom.house && fromRoom.room !== toRoom.room) {
        const edges = roomEdges.get(fromRoom.house) ?? new Map<string, Set<string>>()
        edges.set(fromRoom.room, (edges.get(fromRoom.room) ?? new Set()).add(toRoom.room))
        roomEdges.set(fromRoom.house, edges)
      }
    }
  }
  const cycles = [...roomEdges].flatMap(([house, edges]) =>
    roomCycles(edges).map((cycle) => `${house} folders import each other: ${cycle.join(" → ")}`)
  )
  return [...found, ...cycles]
}

/**
 * One circle per knot of the graph (a strongly connected component of more than one room): the
 * shortest way from the knot's smallest room back to itself, so a knot of 24 rooms is one line.
 */
const roomCycles = (edges: ReadonlyMap<string, ReadonlySet<string>>): Array<ReadonlyArray<string>> => {
  const rooms = [...new Set([...edges.keys(), ...[...edges.values()].flatMap((to) => [...to])])].sort()
  const reaches = (from: string): Set<string> => {
    const seen = new Set<string>()
    const queue = [from]
    for (let at = queue.shift(); at !== undefined; at = queue.shift()) {
      for (const next of edges.get(at) ?? []) if (!seen.has(next)) seen.add(next) && queue.push(next)
    }
    return seen
  }
  const reach = new Map(rooms.map((room) => [room, reaches(room)]))
  const placed = new Set<string>()
  const cycles: Array<ReadonlyArray<string>> = []
  for (const start of rooms) {
    if (placed.has(start) || !reach.get(start)!.has(start)) continue
    const knot = new Set(rooms.filter((room) => reach.get(start)!.has(room) && reach.get(room)!.has(start)))
    for (const room of knot) placed.add(room)
    cycles.push(shortestCircle(edges, start, knot))
  }
  return cycles
}

/** The shortest path from `start` back to itself through rooms of `knot`, breadth first. */
const shortestCircle = (
  edges: ReadonlyMap<string, ReadonlySet<string>>,
  start: string,
  knot: ReadonlySet<string>
): ReadonlyArray<string> => {
  const cameFrom = new Map<string, string>()
  const queue = [start]
  for (let at = queue.shift(); at !== undefined; at = queue.shift()) {
    for (const next of [...(edges.get(at) ?? [])].sort()) {
      if (next === start) {
        const trail = [at]
        while (trail[0] !== start) trail.unshift(cameFrom.get(trail[0]!)!)
        return [...trail, start]
      }
      if (knot.has(next) && !cameFrom.has(next)) {
        cameFrom.set(next, at)
        queue.push(next)
      }
    }
  }
  return [start, start]
}

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(file)
    return /\.tsx?$/.test(entry.name) ? [file] : []
  })

const checked = [
  "core/src",
  "core/test",
  "mocks/src",
  "mocks/test",
  "contracts/abi",
  "contracts/test",
  "cli/src",
  "cli/test",
  "scripts",
  "storybook/src",
  "storybook/chain",
  "storybook/.storybook"
]

/**
 * The map's rule (stated at the top of docs/ARCHITECTURE.md): a module is named when, under the
 * heading of its folder (`### \`core/src/download/\``), a list item starts with its name
 * (`- \`Content.ts\``). Every `.ts` file of core/src and of its folders is a module; in mocks/src,
 * every folder (`- \`x402/\``) and every file at the top. Headings of other folders (`cli/src/`)
 * are the map's too, but not checked.
 */
const mapEntries = (map: string): Set<string> => {
  const named = new Set<string>()
  let folder: string | undefined
  for (const line of map.split("\n")) {
    if (/^#{1,6} /.test(line)) folder = /^#{1,6} `((?:core|mocks)\/src\/[^`]*)`/.exec(line)?.[1]
    const item = /^- `([^`]+)`/.exec(line)
    if (folder !== undefined && item !== null) named.add(`${folder}${item[1]}`)
  }
  return named
}

/** What the map must name: `core/src/download/Content.ts`, `mocks/src/x402/`, `mocks/src/index.ts`. */
const mapModules = (files: ReadonlyArray<string>): Set<string> =>
  new Set(
    files.flatMap((file) => {
      const parts = file.split("/")
      if (parts[0] === "core" && parts[1] === "src") return [file]
      if (parts[0] === "mocks" && parts[1] === "src") return [parts.length === 3 ? file : `mocks/src/${parts[2]}/`]
      return []
    })
  )

/** The modules the map does not name, and the lines that name what is not there. */
const mapGaps = (modules: ReadonlySet<string>, named: ReadonlySet<string>): Array<string> => [
  ...[...modules].filter((module) => !named.has(module)).map((module) => `missing from the map: ${module}`),
  ...[...named].filter((entry) => !modules.has(entry)).map((entry) => `named by the map but not there: ${entry}`)
]

describe("the map", () => {
  it("names every module of core/src/*/, every folder of mocks/src, and nothing that is gone", () => {
    const modules = mapModules([...sourceFiles("core/src"), ...sourceFiles("mocks/src")])
    expect(modules.size).toBeGreaterThan(150)
    const named = mapEntries(readFileSync(path.join(root, "docs/ARCHITECTURE.md"), "utf8"))
    expect(mapGaps(modules, named).sort()).toEqual([])
  })

  it("reads names only from items under a folder's heading", () => {
    const map = [
      "# Architecture",
      "- `Upload.ts`: before any folder's heading, so not read",
      "### `core/src/`",
      "- `Upload.ts`: a service",
      "### `core/src/download/`",
      "- `Content.ts`: the gateway's bytes",
      "  - `Nested.ts`: not an item of the list",
      "text naming `Sources.ts` in passing",
      "## Elsewhere",
      "- `Split.ts`: under a heading that names no folder",
      "### `cli/src/commands/`",
      "- `Dev.ts`: a folder the test does not check",
      "### `mocks/src/`",
      "- `x402/`: pay-per-upload"
    ].join("\n")
    expect([...mapEntries(map)]).toEqual(["core/src/Upload.ts", "core/src/download/Content.ts", "mocks/src/x402/"])
    const modules = mapModules([
      "core/src/Upload.ts",
      "core/src/download/Content.ts",
      "core/src/download/Sources.ts",
      "mocks/src/x402/Facilitator.ts",
      "mocks/src/x402/UploadRoute.ts",
      "mocks/src/index.ts"
    ])
    expect(mapGaps(modules, mapEntries(map))).toEqual([
      "missing from the map: core/src/download/Sources.ts",
      "missing from the map: mocks/src/index.ts"
    ])
    expect(mapGaps(new Set(["core/src/Upload.ts"]), mapEntries(map))).toEqual([
      "named by the map but not there: core/src/download/Content.ts",
      "named by the map but not there: mocks/src/x402/"
    ])
  })
})

describe("imports", () => {
  it("run one way between areas, through entry points, in sources and tests, without folder cycles", () => {
    const files = new Map(
      checked.flatMap(sourceFiles).map((file) => [file, readFileSync(path.join(root, file), "utf8")])
    )
    expect(files.size).toBeGreaterThan(350)
    for (const area of ["core/test/", "mocks/test/", "contracts/test/", "cli/test/", "scripts/test/"]) {
      expect([...files.keys()].some((file) => file.startsWith(area))).toBe(true)
    }
    expect(violations(files)).toEqual([])
  })

  it("reads static, re-exported, side-effect and dynamic imports, not examples in comments", () => {
    const source = [
      'import { a } from "./a.ts"',
      'import {\n  b,\n  type c\n} from "lighthouse-effect"',
      'export * from "./d.ts"',
      'import "./e.ts"',
      'const f = await import("./f.ts")',
      ' * import { g } from "../../core/src/g.ts"'
    ].join("\n")
    expect(specifiersOf(source)).toEqual(["./a.ts", "lighthouse-effect", "./d.ts", "./e.ts", "./f.ts"])
  })

  it("fails on every kind of wrong-way import", () => {
    const planted = new Map([
      ["core/src/Upload.ts", 'import { createMockNetwork } from "lighthouse-effect/mocks"'],
      ["core/src/Files.ts", 'import { x } from "../../scripts/serve.ts"'],
      ["mocks/src/api/Files.ts", 'import { run } from "../../../scripts/simulate/Run.ts"'],
      ["scripts/serve.ts", 'import { demo } from "../storybook/src/demo/arrange.ts"'],
      ["storybook/src/demo/chain.ts", 'import { Cid } from "../../../core/src/schema/Cid.ts"'],
      ["mocks/src/gateway/GatewayHost.ts", 'import type { IpnsKeys } from "../api/Ipns.ts"'],
      ["mocks/src/api/Ipns.ts", 'import { MediaTypes } from "../gateway/Negotiate.ts"'],
      ["mocks/src/node.ts", 'import "../../tooling/requireNode.mjs"'],
      ["scripts/simulate.ts", 'import "../tooling/requireNode.mjs"']
    ])
    expect(violations(planted)).toEqual([
      'core/src/Upload.ts: core must not import mocks ("lighthouse-effect/mocks")',
      'core/src/Files.ts: relative import "../../scripts/serve.ts" leaves core/',
      'core/src/Files.ts: core must not import scripts ("../../scripts/serve.ts")',
      'mocks/src/api/Files.ts: relative import "../../../scripts/simulate/Run.ts" leaves mocks/',
      'mocks/src/api/Files.ts: mocks must not import scripts ("../../../scripts/simulate/Run.ts")',
      'scripts/serve.ts: relative import "../storybook/src/demo/arrange.ts" leaves scripts/',
      'scripts/serve.ts: scripts must not import storybook ("../storybook/src/demo/arrange.ts")',
      'storybook/src/demo/chain.ts: relative import "../../../core/src/schema/Cid.ts" leaves storybook/',
      'mocks/src/node.ts: relative import "../../tooling/requireNode.mjs" leaves mocks/',
      "mocks/src folders import each other: api → gateway → api"
    ])
  })

  it("holds tests to the same rules, the local network apart", () => {
    const planted = new Map([
      ["core/test/verify/fixtures.ts", 'import { concat } from "../../../mocks/src/storage/Blocks.ts"'],
      ["core/test/verify/Cids.test.ts", 'import { lcgMegabyte } from "../../../mocks/test/support/upload.ts"'],
      ["contracts/test/abi.test.ts", 'import { readArtifact } from "../../scripts/export-abi.ts"'],
      ["cli/test/support.ts", 'import { Cid } from "../../core/src/schema/Cid.ts"'],
      ["mocks/test/api/Files.test.ts", 'import { cli } from "../../../cli/src/Main.ts"'],
      ["core/test/Upload.test.ts", 'import { createMockNetwork } from "lighthouse-effect/mocks"'],
      ["core/test/verify/Bytes.test.ts", 'import { lcgMegabyte } from "lighthouse-effect/mocks/testing"'],
      ["contracts/test/localChain.test.ts", 'import { startLocalChain } from "lighthouse-effect/mocks/chain"'],
      ["mocks/test/api/Users.test.ts", 'import { addFile } from "../support/upload.ts"'],
      ["scripts/test/serve.test.ts", 'import { x } from "../serve.ts"']
    ])
    expect(violations(planted)).toEqual([
      'core/test/verify/fixtures.ts: relative import "../../../mocks/src/storage/Blocks.ts" leaves core/',
      'core/test/verify/Cids.test.ts: relative import "../../../mocks/test/support/upload.ts" leaves core/',
      'contracts/test/abi.test.ts: relative import "../../scripts/export-abi.ts" leaves contracts/',
      'contracts/test/abi.test.ts: contracts must not import scripts ("../../scripts/export-abi.ts")',
      'cli/test/support.ts: relative import "../../core/src/schema/Cid.ts" leaves cli/',
      'mocks/test/api/Files.test.ts: relative import "../../../cli/src/Main.ts" leaves mocks/',
      'mocks/test/api/Files.test.ts: mocks must not import cli ("../../../cli/src/Main.ts")'
    ])
  })

  it("fails on a knot of core's folders and top-level files, one line per knot", () => {
    const planted = new Map([
      ["core/src/internal/Arguments.ts", 'import type { Upload } from "../Upload.ts"'],
      ["core/src/Upload.ts", 'import { encryptedFile } from "./upload/Encrypted.ts"'],
      [
        "core/src/upload/Encrypted.ts",
        'import { KeyShards } from "../KeyShards.ts"\nimport { execute } from "../internal/http.ts"'
      ],
      ["core/src/KeyShards.ts", 'import { save } from "./keyShards/Save.ts"'],
      ["core/src/keyShards/Save.ts", 'import { execute } from "../internal/http.ts"'],
      ["core/src/promise.ts", 'import { facadeArguments } from "./promise/Arguments.ts"'],
      ["core/src/promise/Arguments.ts", 'import type { Upload } from "../Upload.ts"'],
      ["core/src/index.ts", 'export * as Upload from "./Upload.ts"']
    ])
    expect(violations(planted)).toEqual([
      "core/src folders import each other: KeyShards.ts → keyShards → internal → Upload.ts → upload → KeyShards.ts"
    ])
    planted.delete("core/src/internal/Arguments.ts")
    expect(violations(planted)).toEqual([])
  })
})
