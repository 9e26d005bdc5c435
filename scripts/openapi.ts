/**
 * Writes `docs/openapi.json`, the OpenAPI document of the provider's API as this project knows
 * it, generated from the contract (`Contract.openApi()`). The file is committed;
 * `scripts/test/openapi.test.ts` fails when it no longer matches the contract.
 *
 * `npm run openapi` writes it; `npm run openapi -- --check` only says whether it is current.
 */
import "../tooling/requireNode.mjs"
import { readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import * as Contract from "lighthouse-effect/contract"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

/** Where the document lives. */
export const openApiPath = path.join(root, "docs", "openapi.json")

/** The document's text as it is committed: two-space JSON, a final newline. */
export const openApiText = (): string => `${JSON.stringify(Contract.openApi(), null, 2)}\n`

const main = () => {
  const text = openApiText()
  if (process.argv.includes("--check")) {
    const current = readFileSync(openApiPath, "utf8")
    if (current !== text) {
      console.error("docs/openapi.json is stale: run `npm run openapi`")
      process.exitCode = 1
    }
    return
  }
  writeFileSync(openApiPath, text)
  console.log(`wrote ${path.relative(root, openApiPath)}`)
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main()
