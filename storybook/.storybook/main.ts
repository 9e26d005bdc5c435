import { readdirSync, readFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { defineMain } from "@storybook/react-vite/node"
import { defaultClientConditions } from "vite"

// Pre-bundled up front: optimising one on first use reloads the page under a running story or
// test (a cold cache in CI hits every one). The list is read from the sources the stories reach,
// so a new import cannot be forgotten; Node-only modules and the project's own entry points
// (`lighthouse-effect/...`, served from its sources) are left out.
const root = fileURLToPath(new URL("../..", import.meta.url))
const browserSources = ["core/src", "mocks/src", "contracts/abi", "storybook/src"]
const notPrebundled =
  /^(lighthouse-effect|node:|@effect\/platform-node|msw\/node|hardhat|@nomicfoundation|esbuild|vite|storybook)/
const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return /\.tsx?$/.test(entry.name) ? [full] : []
  })
const browserDependencies = [
  ...new Set([
    "@storybook/addon-a11y",
    "@storybook/addon-docs",
    "react/jsx-dev-runtime",
    ...browserSources
      .flatMap((dir) => sourceFiles(path.join(root, dir)))
      .flatMap((file) => [...readFileSync(file, "utf8").matchAll(/^import\s[^"']*["']([^."'][^"']*)["']/gm)])
      .map((match) => match[1]!)
      .filter((specifier) => !notPrebundled.test(specifier))
  ])
].sort()

export default defineMain({
  framework: "@storybook/react-vite",
  // No telemetry banner in test output, and nothing sent from a developer's machine.
  core: { disableTelemetry: true },
  stories: ["../src/**/*.stories.tsx"],
  addons: ["@storybook/addon-docs", "@storybook/addon-a11y", "@storybook/addon-vitest"],
  // The msw service worker is served from here (`npx msw init storybook/public`).
  staticDirs: ["../public"],
  viteFinal: (config) => ({
    ...config,
    // `lighthouse-effect/...` self-references resolve to the TypeScript sources (package.json `exports`).
    resolve: {
      ...config.resolve,
      conditions: ["@lighthouse-effect/source", ...(config.resolve?.conditions ?? defaultClientConditions)]
    },
    optimizeDeps: {
      ...config.optimizeDeps,
      include: [...(config.optimizeDeps?.include ?? []), ...browserDependencies]
    }
  })
})
