/**
 * BENCHMARKS.md, one `## ` section per benchmark: each run replaces its own section
 * and leaves the others as they were; and how figures are written there and on the console.
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

/** A figure with 2 significant decimals below 10, 1 below 100, none above. */
export const figure = (n: number): string => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2))

/** The table of rows compared to a baseline, as a section of BENCHMARKS.md shows them. */
export const comparisonTable = (rows: ReadonlyArray<BenchRow>): Array<string> => [
  "| benchmark | here | baseline | ratio | target | met |",
  "|---|---|---|---|---|---|",
  ...rows.map(
    (r) =>
      `| ${r.benchmark} | ${figure(r.value)} ${r.unit} | ${r.baseline ? `${figure(r.baseline.value)} ${r.unit} (${r.baseline.name})` : "–"} | ` +
      `${r.ratio === undefined ? "–" : `${figure(r.ratio)}×`} | ${r.target} | ${r.pass ? "yes" : "**no**"} |`
  )
]

/** Prints each row on one line, `ok` or `FAIL` first. */
export const printRows = (rows: ReadonlyArray<BenchRow>): void => {
  for (const r of rows) {
    const base = r.baseline ? `  vs ${figure(r.baseline.value)} ${r.unit} (${r.baseline.name})` : ""
    const ratio = r.ratio === undefined ? "" : `  ratio ${figure(r.ratio)}×`
    console.log(
      `${r.pass ? "ok  " : "FAIL"} ${r.benchmark}: ${figure(r.value)} ${r.unit}${base}${ratio}  [${r.target}]`
    )
  }
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

/** The median of some samples (the mean of the two middle ones for an even count). */
export const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
