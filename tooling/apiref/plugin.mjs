// A TypeDoc plugin for the API reference (typedoc.json): each entry point is a module named as a
// user imports it (`lighthouse-effect/node`, not `core/src/node`), and its file's opening doc
// comment becomes the module's page. TypeDoc takes a file's first comment for the module only when
// it carries `@module` or another comment follows it; the sources' opening comments do neither.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Comment, Converter, MinimalSourceFile, ReflectionKind } from "typedoc"

const root = fileURLToPath(new URL("../..", import.meta.url))

/** TypeDoc's module name (the entry's path from the common folder) → the export and its file. */
const entries = {
  "core/src": ["lighthouse-effect", "core/src/index.ts"],
  "core/src/node": ["lighthouse-effect/node", "core/src/node.ts"],
  "core/src/promise": ["lighthouse-effect/promise", "core/src/promise.ts"],
  "core/src/Contract": ["lighthouse-effect/contract", "core/src/Contract.ts"],
  "contracts/abi": ["lighthouse-effect/contracts", "contracts/abi/index.ts"],
  "mocks/src": ["lighthouse-effect/mocks", "mocks/src/index.ts"],
  "mocks/src/node": ["lighthouse-effect/mocks/node", "mocks/src/node.ts"],
  "mocks/src/browser": ["lighthouse-effect/mocks/browser", "mocks/src/browser.ts"],
  "mocks/src/server/serve": ["lighthouse-effect/mocks/server", "mocks/src/server/serve.ts"],
  "mocks/src/chain/LocalChain": ["lighthouse-effect/mocks/chain", "mocks/src/chain/LocalChain.ts"],
  "mocks/src/testing": ["lighthouse-effect/mocks/testing", "mocks/src/testing/index.ts"]
}

/** The text of a file's opening `/** … *\/` comment, without its stars and its `@since` line. */
const openingComment = (file) => {
  const match = /^\s*\/\*\*([\s\S]*?)\*\//.exec(readFileSync(join(root, file), "utf8"))
  if (match === null) return undefined
  return match[1]
    .split("\n")
    .map((line) => line.replace(/^\s*\* ?/, ""))
    .filter((line) => !line.startsWith("@since"))
    .join("\n")
    .trim()
}

/** @param {import("typedoc").Application} app */
export const load = (app) => {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const module of context.project.getChildrenByKind(ReflectionKind.Module)) {
      const entry = entries[module.name]
      if (entry === undefined) {
        app.logger.error(`api reference: the module ${module.name} has no name in tooling/apiref/plugin.mjs`)
        continue
      }
      const [name, file] = entry
      module.name = name
      const text = openingComment(file)
      if (text !== undefined && module.comment === undefined) {
        const { content } = context.converter.parseRawComment(
          new MinimalSourceFile(text, join(root, file)),
          context.project.files
        )
        module.comment = new Comment(content)
      }
    }
  })
}
