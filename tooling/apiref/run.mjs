// The API reference (`npm run docs`; `npm run test:apiref`, part of `npm test`): TypeDoc over every
// entry point of the package (`typedoc.json`), from the sources' doc comments, into docs/api/
// (gitignored; open docs/api/index.html). It fails on any TypeDoc warning, a `{@link}` that resolves
// to nothing among them, then checks what was written:
// - every link of the generated HTML between its pages resolves: the file exists and, for a
//   `#fragment`, the page has an element with that id (external links are counted, not fetched);
// - every ```ts example the reference shows (the doc comments' and the documents') is type-checked
//   by the project's TypeScript 7 as a module of this repository (self-references resolve to the
//   sources), strictly, with the project's compiler options.
// TypeDoc runs on TypeScript 6 (its compiler API) from tooling/apiref's own node_modules, which
// `npm ci` installs (the `lighthouse-effect-apiref` devDependency). Quiet when it passes but for one
// line of counts; on a failure it prints what failed.
import "../requireNode.mjs"
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { basename, dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../..", import.meta.url))
const here = join(root, "tooling", "apiref")
const out = join(root, "docs", "api")
const started = Date.now()

const fail = (step, output) => {
  process.stderr.write(`api reference: ${step} failed\n${output}\n`)
  process.exit(1)
}

const run = (step, args) => {
  const result = spawnSync(process.execPath, args, { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}${result.error ? String(result.error) : ""}`
  if (result.status !== 0) fail(step, output)
  return output
}

// 1. The reference, by TypeDoc on TypeScript 6 (warnings are errors: an unresolved link fails it).
const typedoc = join(here, "node_modules", "typedoc", "bin", "typedoc")
if (!existsSync(typedoc)) fail("TypeDoc", `${typedoc} is missing: run npm ci`)
rmSync(out, { recursive: true, force: true })
run("TypeDoc", [typedoc, "--options", join(here, "typedoc.json"), "--logLevel", "Warn"])

// 2. Links between the generated pages.
const pages = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? pages(join(dir, entry.name)) : entry.name.endsWith(".html") ? [join(dir, entry.name)] : []
  )
const idsCache = new Map()
const idsOf = (file) => {
  if (!idsCache.has(file)) {
    const html = readFileSync(file, "utf8")
    idsCache.set(file, new Set([...html.matchAll(/\s(?:id|name)="([^"]*)"/g)].map((m) => m[1])))
  }
  return idsCache.get(file)
}
// The hierarchy page is drawn by its script (assets/hierarchy.js), expanded at the reflection its
// fragment names by its full name: a link to it is good when that names the linking page's own
// reflection (`interfaces/core_src.Chain.NamedNetwork.html` → `#core/src.Chain.NamedNetwork`).
const hierarchyOf = (page, target, id) =>
  target === join(out, "hierarchy.html") && basename(page) === `${id.replaceAll("/", "_")}.html`
const external = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i
const broken = []
let internalLinks = 0
let externalLinks = 0
const htmlPages = pages(out)
for (const page of htmlPages) {
  const html = readFileSync(page, "utf8")
  for (const [, raw] of html.matchAll(/\s(?:href|src)="([^"]*)"/g)) {
    const link = raw.replaceAll("&amp;", "&")
    if (external.test(link)) {
      externalLinks += 1
      continue
    }
    internalLinks += 1
    const [pathPart, fragment] = link.split("#", 2)
    const path = decodeURIComponent((pathPart ?? "").split("?")[0] ?? "")
    const target = path === "" ? page : resolve(dirname(page), path)
    const where = `${relative(out, page)}: ${raw}`
    if (!existsSync(target)) broken.push(`${where} (no ${relative(root, target)})`)
    else if (fragment !== undefined && fragment !== "" && target.endsWith(".html")) {
      const id = decodeURIComponent(fragment)
      if (!idsOf(target).has(id) && !hierarchyOf(page, target, id)) broken.push(`${where} (no #${fragment} in it)`)
    }
  }
}
if (broken.length > 0) fail("the reference's links", `${broken.length} broken:\n${broken.join("\n")}`)

// 3. The examples the reference shows, type-checked: every ```ts block of its comments and documents.
const reference = JSON.parse(readFileSync(join(out, "reference.json"), "utf8"))
const examples = []
const collect = (node, owner) => {
  if (Array.isArray(node)) {
    for (const item of node) collect(item, owner)
    return
  }
  if (typeof node !== "object" || node === null) return
  // TypeDoc shows a `@default` value as a code block: a value, not an example.
  if (node.tag === "@default" || node.tag === "@defaultValue") return
  const name = typeof node.name === "string" && typeof node.variant === "string" ? node.name : owner
  if (node.kind === "code" && typeof node.text === "string") {
    const block = /^```(?:ts|typescript)\s*\n([\s\S]*?)```\s*$/.exec(node.text)
    if (block !== null) examples.push({ owner: name, source: block[1] })
  }
  for (const value of Object.values(node)) if (typeof value === "object") collect(value, name)
}
collect(reference, "lighthouse-effect")
// A folder of the repository (so that `lighthouse-effect/…` resolves to the sources), gitignored.
const scratch = join(root, ".scratch-apiref")
rmSync(scratch, { recursive: true, force: true })
mkdirSync(scratch)
examples.forEach(({ owner, source }, i) => {
  writeFileSync(join(scratch, `example-${i + 1}.ts`), `// The example of ${owner} in the API reference.\n${source}`)
})
writeFileSync(
  join(scratch, "tsconfig.json"),
  JSON.stringify({ extends: "../tsconfig.json", compilerOptions: { noEmit: true }, include: ["*.ts"] })
)
if (examples.length > 0)
  run("type-check of the reference's examples", [join(root, "node_modules/typescript/bin/tsc"), "-p", scratch])
rmSync(scratch, { recursive: true, force: true })

const seconds = ((Date.now() - started) / 1000).toFixed(1)
console.log(
  `api reference: docs/api/index.html, ${htmlPages.length} pages, ${internalLinks} links between them resolved ` +
    `(${externalLinks} external not fetched), ${examples.length} examples type-checked, in ${seconds} s`
)
