import "./tooling/requireNode.mjs"
import { defineConfig } from "vitest/config"

// One `vitest run` covers the library, the local network and the scripts (project
// `unit`, in Node) and the Storybook stories (project `storybook`, in Chromium).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["core/test/**/*.test.ts", "mocks/test/**/*.test.ts", "scripts/test/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000
        }
      },
      "storybook/vitest.config.ts"
    ]
  }
})
