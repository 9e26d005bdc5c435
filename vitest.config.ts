import "./tooling/requireNode.mjs"
import { defaultClientConditions, defaultServerConditions } from "vite"
import { defineConfig } from "vitest/config"

// `lighthouse-effect/...` self-references resolve to the TypeScript sources under this export
// condition (see package.json `exports`), so tests run without a build.
const source = "@lighthouse-effect/source"

// One `vitest run` covers the library, the local network and the scripts (project
// `unit`, in Node) and the Storybook stories (project `storybook`, in Chromium).
export default defineConfig({
  test: {
    // A green run prints test names and summaries only: no performance hints. Each test file keeps
    // its own module graph (isolation) on purpose: the mock network and msw are per file.
    experimental: { diagnostics: false },
    projects: [
      {
        resolve: { conditions: [source, ...defaultClientConditions] },
        ssr: { resolve: { conditions: [source, ...defaultServerConditions] } },
        test: {
          name: "unit",
          include: [
            "core/test/**/*.test.ts",
            "mocks/test/**/*.test.ts",
            "scripts/test/**/*.test.ts",
            "cli/test/**/*.test.ts"
          ],
          testTimeout: 60_000,
          hookTimeout: 120_000
        }
      },
      "storybook/vitest.config.ts"
    ]
  }
})
