/**
 * Imports run one way: core ← mocks ← (scripts, storybook), with contracts' ABI modules usable by
 * all. Another area is reached only through the package's entry points (`lighthouse-effect/...`),
 * never by a relative path, and mocks' folders do not import each other in a circle.
 */
import { readdirSync, readFileSync } from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"

const root = path.resolve(import.meta.dirname, "..", "..")
const areas = ["core", "mocks", "scripts", "storybook", "contracts"] as const
type Area = (typeof areas)[number]

/** The areas each area may import (besides itself). */
const allowed: Record<Area, ReadonlyArray<Area>> = {
  contracts: [],
  core: ["contracts"],
  mocks: ["core", "contracts"],
  scripts: ["mocks", "core", "contracts"],
  storybook: ["mocks", "core", "contracts"]
}

const requireNode = "tooling/requireNode.mjs"
const entryPointAreas: ReadonlyArray<Area> = ["scripts", "storybook"]

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

/** The folder directly under `mocks/src` a file is in, or undefined for the entry files at its top. */
const mocksFolderOf = (file: string): string | undefined => {
  const parts = file.split("/")
  return file.startsWith("mocks/src/") && parts.length > 3 ? parts[2] : undefined
}

/** Every import that runs the wrong way in `files` (project-relative path → source). */
const violations = (files: ReadonlyMap<string, string>): Array<string> => {
  const found: Array<string> = []
  const folderEdges = new Map<string, Set<string>>()
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
      if (to !== undefined && to !== from && !allowed[from].includes(to)) {
        found.push(`${file}: ${from} must not import ${to} ("${specifier}")`)
      }
      const fromFolder = mocksFolderOf(file)
      const toFolder = target === undefined ? undefined : mocksFolderOf(target)
      if (fromFolder !== undefined && toFolder !== undefined && fromFolder !== toFolder) {
        folderEdges.set(fromFolder, (folderEdges.get(fromFolder) ?? new Set()).add(toFolder))
      }
    }
  }
  return [...found, ...folderCycles(folderEdges)]
}

/** Each circle of folders in the graph, reported once from its smallest folder name. */
const folderCycles = (edges: ReadonlyMap<string, ReadonlySet<string>>): Array<string> => {
  const cycles: Array<string> = []
  const visit = (start: string, at: string, trail: ReadonlyArray<string>) => {
    for (const next of edges.get(at) ?? []) {
      if (next === start) cycles.push(`mocks/src folders import each other: ${[...trail, start].join(" → ")}`)
      else if (!trail.includes(next) && next > start) visit(start, next, [...trail, next])
    }
  }
  for (const start of [...edges.keys()].sort()) visit(start, start, [start])
  return cycles
}

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(file)
    return /\.tsx?$/.test(entry.name) ? [file] : []
  })

const checked = [
  "core/src",
  "mocks/src",
  "mocks/test",
  "scripts",
  "storybook/src",
  "storybook/chain",
  "storybook/.storybook"
]

describe("imports", () => {
  it("run one way between areas, through entry points, without folder cycles in mocks", () => {
    const files = new Map(
      checked.flatMap(sourceFiles).map((file) => [file, readFileSync(path.join(root, file), "utf8")])
    )
    expect(files.size).toBeGreaterThan(150)
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
      ["mocks/src/upload/Gateway.ts", 'import { errorResponse } from "../api/Respond.ts"'],
      ["mocks/src/api/Deals.ts", 'import type { ContentStore } from "../upload/ContentStore.ts"'],
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
      "mocks/src folders import each other: api → upload → api"
    ])
  })
})
