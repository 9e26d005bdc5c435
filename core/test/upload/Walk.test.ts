/**
 * The folder walk against a model, on random trees written to disk: folders, files and symbolic
 * links to anything in the tree (files, folders, the folders above the link, other links, so
 * chains and cycles of links) or to nothing. The model follows links as the system does; a folder
 * reached again below itself is a loop. With `skipUnreadable` the walk finds the model's files (in
 * name order, with their sizes) and skips the model's entries; without it, it fails on the first of
 * them, or finds the same files when there is none.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { NodeFileSystem } from "@effect/platform-node"
import { Effect, FileSystem } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as Walk from "../../src/upload/Walk.ts"

/** A generated entry: a file of some bytes, a folder, or a link to the `pick`-th candidate target. */
type Node =
  | { readonly kind: "file"; readonly size: number }
  | { readonly kind: "dir"; readonly children: Readonly<Record<string, Node>> }
  | { readonly kind: "link"; readonly pick: number }

const { node } = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.record({ kind: fc.constant("file" as const), size: fc.nat({ max: 3 }) }),
    fc.record({
      kind: fc.constant("dir" as const),
      children: fc.dictionary(fc.constantFrom("a", "b", "c", "d.txt"), tie("node"), { maxKeys: 4 })
    }),
    fc.record({ kind: fc.constant("link" as const), pick: fc.nat() })
  )
}))
const tree = fc.dictionary(fc.constantFrom("a", "b", "c", "d.txt", "e"), node, { minKeys: 1, maxKeys: 5 })

/** An entry of the flattened tree, by its path from the walked folder (`""` is the folder). */
type Flat =
  | { readonly kind: "file"; readonly size: number }
  | { readonly kind: "dir" }
  | { readonly kind: "link"; readonly target: string }

/** Every path of the tree; a link's target chosen among every path and one that does not exist. */
const flatten = (children: Readonly<Record<string, Node>>): Map<string, Flat> => {
  const flat = new Map<string, Flat>([["", { kind: "dir" }]])
  const picks: Array<[string, number]> = []
  const visit = (at: string, entries: Readonly<Record<string, Node>>) => {
    for (const [name, entry] of Object.entries(entries)) {
      const path = at === "" ? name : `${at}/${name}`
      if (entry.kind === "file") flat.set(path, entry)
      else if (entry.kind === "link") picks.push([path, entry.pick])
      else {
        flat.set(path, { kind: "dir" })
        visit(path, entry.children)
      }
    }
  }
  visit("", children)
  const candidates = [...flat.keys(), ...picks.map(([path]) => path), "missing"]
  for (const [path, pick] of picks) flat.set(path, { kind: "link", target: candidates[pick % candidates.length]! })
  return flat
}

/** What a path is once links are followed: a file, a folder (by its own path), broken, or a loop. */
const resolve = (flat: Map<string, Flat>, path: string, seen: ReadonlySet<string> = new Set()) => {
  const entry = flat.get(path)
  if (entry === undefined) return { kind: "broken link" } as const
  if (entry.kind === "file") return { kind: "file", size: entry.size } as const
  if (entry.kind === "dir") return { kind: "dir", real: path } as const
  if (seen.has(path)) return { kind: "symlink loop" } as const
  return resolve(flat, entry.target, new Set([...seen, path]))
}

/** The model's walk: the files (path inside the folder, size) and the skipped entries, in order. */
const model = (flat: Map<string, Flat>) => {
  const files: Array<[string, number]> = []
  const skipped: Array<Walk.Skipped> = []
  const go = (real: string, relative: string, above: ReadonlySet<string>) => {
    const names = [...flat.keys()]
      .filter((p) => p !== "" && nodePath.posix.dirname(p) === (real === "" ? "." : real))
      .map((p) => nodePath.posix.basename(p))
      .sort()
    for (const name of names) {
      const rel = relative === "" ? name : `${relative}/${name}`
      const found = resolve(flat, real === "" ? name : `${real}/${name}`)
      if (found.kind === "file") files.push([rel, found.size])
      else if (found.kind === "dir") {
        if (above.has(found.real)) skipped.push({ path: rel, reason: "symlink loop" })
        else go(found.real, rel, new Set([...above, found.real]))
      } else skipped.push({ path: rel, reason: found.kind })
    }
  }
  go("", "", new Set([""]))
  return { files, skipped }
}

/** Writes the tree under a fresh folder; each link's target relative to the link's folder. */
const write = async (flat: Map<string, Flat>) => {
  const root = await fs.mkdtemp(nodePath.join(os.tmpdir(), "walk-"))
  const abs = (path: string) => nodePath.join(root, path)
  for (const [path, entry] of flat) {
    if (path === "") continue
    if (entry.kind === "dir") await fs.mkdir(abs(path), { recursive: true })
    else await fs.mkdir(nodePath.dirname(abs(path)), { recursive: true })
    if (entry.kind === "file") await fs.writeFile(abs(path), "x".repeat(entry.size))
    if (entry.kind === "link") {
      await fs.symlink(nodePath.relative(nodePath.dirname(abs(path)), abs(entry.target)) || ".", abs(path))
    }
  }
  return root
}

const walked = (root: string, skipUnreadable: boolean) =>
  Effect.runPromise(
    Effect.gen(function* () {
      return yield* Walk.walk(yield* FileSystem.FileSystem, root, { skipUnreadable })
    }).pipe(Effect.result, Effect.provide(NodeFileSystem.layer))
  )

describe("Walk", () => {
  it("property: on random trees of files, folders and links, the walk is the model's", async () => {
    await fc.assert(
      fc.asyncProperty(tree, async (children) => {
        const flat = flatten(children)
        const expected = model(flat)
        const root = await write(flat)
        try {
          const skipping = await walked(root, true)
          expect(skipping._tag).toBe("Success")
          if (skipping._tag !== "Success") return
          expect(skipping.success.files.map((f) => [f.relative, f.size])).toEqual(expected.files)
          expect(skipping.success.skipped).toEqual(expected.skipped)
          const strict = await walked(root, false)
          if (expected.skipped.length === 0) {
            expect(strict._tag === "Success" && strict.success).toEqual({ files: skipping.success.files, skipped: [] })
          } else {
            const first = expected.skipped[0]!
            expect(strict._tag === "Failure" && strict.failure).toMatchObject({ _tag: "UnreadableEntry", ...first })
          }
        } finally {
          await fs.rm(root, { recursive: true, force: true })
        }
      }),
      { numRuns: 60 }
    )
  })
})
