/**
 * BENCHMARKS.md, one `## ` section per benchmark: each run replaces its own section
 * and leaves the others as they were.
 *
 * @since 0.1.0
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

/** One measured figure, with the baseline it is compared to when there is one. */
export interface BenchRow {
  readonly benchmark: string
  readonly value: number
  readonly unit: string
  readonly baseline?: { readonly name: string; readonly value: number } | undefined
  /** value / baseline (or the figure the target is about). */
  readonly ratio?: number | undefined
  readonly target: string
  readonly pass: boolean
}

export const benchmarksFile = fileURLToPath(new URL("../../BENCHMARKS.md", import.meta.url))

/** Replaces the section whose heading is `section`'s first line (or appends it). */
export const writeSection = (section: string, path: string = benchmarksFile): void => {
  const heading = section.split("\n", 1)[0]!.trim()
  const text = existsSync(path) ? readFileSync(path, "utf8") : "# Benchmarks\n"
  const lines = text.split("\n")
  const start = lines.findIndex((l) => l.trim() === heading)
  if (start < 0) {
    writeFileSync(path, `${text.trimEnd()}\n\n${section.trimEnd()}\n`)
    return
  }
  const next = lines.findIndex((l, i) => i > start && l.startsWith("## "))
  const after = next < 0 ? [] : ["", ...lines.slice(next)]
  writeFileSync(
    path,
    `${[...lines.slice(0, start), ...section.trimEnd().split("\n"), ...after].join("\n").trimEnd()}\n`
  )
}

/** Replaces the text between the title and the first section: where and when the figures were taken. */
export const writePreamble = (preamble: string, path: string = benchmarksFile): void => {
  const text = existsSync(path) ? readFileSync(path, "utf8") : "# Benchmarks\n"
  const lines = text.split("\n")
  const first = lines.findIndex((l) => l.startsWith("## "))
  const sections = first < 0 ? [] : lines.slice(first)
  writeFileSync(path, `${["# Benchmarks", "", preamble.trimEnd(), "", ...sections].join("\n").trimEnd()}\n`)
}
