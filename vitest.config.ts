import { defineConfig } from "vitest/config"

// One `vitest run` covers the library and the local network; Storybook's browser
// project is added by storybook/vitest.config.ts.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["core/test/**/*.test.ts", "mocks/test/**/*.test.ts", "scripts/test/**/*.test.ts"],
          setupFiles: [],
          testTimeout: 60_000,
          hookTimeout: 60_000
        }
      }
    ]
  }
})
