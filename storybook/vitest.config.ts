import "../tooling/requireNode.mjs"
import { mkdirSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import Chromium from "@sparticuz/chromium"
import { storybookTest } from "@storybook/addon-vitest/vitest-plugin"
import { playwright } from "@vitest/browser-playwright"
import { defaultClientConditions, defaultServerConditions } from "vite"
import { defineProject } from "vitest/config"

const dirname = path.dirname(fileURLToPath(import.meta.url))

// Stories' play functions run as tests in headless Chromium. The browser comes from the npm
// registry inside @sparticuz/chromium: no download from elsewhere, no root, no system package.
// `CHROMIUM_PATH` picks another Chromium.
const executablePath = process.env.CHROMIUM_PATH ?? (await unpackChromium())

/**
 * @sparticuz/chromium unpacks into `os.tmpdir()`, a folder shared by every user and checkout of
 * the machine (another user's `/tmp/chromium` cannot be run): unpack into this checkout instead.
 */
async function unpackChromium(): Promise<string> {
  const previous = process.env.TMPDIR
  process.env.TMPDIR = path.join(dirname, "..", "node_modules", ".cache", "chromium")
  mkdirSync(process.env.TMPDIR, { recursive: true })
  try {
    return await Chromium.executablePath()
  } finally {
    if (previous === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = previous
  }
}
export default defineProject({
  // `lighthouse-effect/...` self-references resolve to the TypeScript sources (package.json `exports`).
  resolve: {
    conditions: ["@lighthouse-effect/source", ...defaultClientConditions],
    // Vitest loads the global setup (the local chain) without the condition above: it reaches the
    // chain helpers' source directly.
    alias: [
      { find: /^lighthouse-effect\/mocks\/chain$/, replacement: path.join(dirname, "../mocks/src/chain/LocalChain.ts") }
    ]
  },
  ssr: { resolve: { conditions: ["@lighthouse-effect/source", ...defaultServerConditions] } },
  plugins: [storybookTest({ configDir: path.join(dirname, ".storybook") })],
  test: {
    name: "storybook",
    setupFiles: ["./vitest.setup.ts"],
    // The contract's cases call ~60 endpoints in one story: on a loaded 2-core machine, over 15 s.
    testTimeout: 60_000,
    // `STORYBOOK_SCREENSHOTS=1` writes the screenshots the setup file takes (see vitest.setup.ts).
    provide: { saveScreenshots: process.env.STORYBOOK_SCREENSHOTS === "1" },
    // Payment and EVM-condition stories need the local chain on 127.0.0.1:8545; the served docs story, `npm run serve`.
    globalSetup: ["./chain/globalSetup.ts", "./served/globalSetup.ts"],
    browser: {
      enabled: true,
      headless: true,
      provider: playwright({
        launchOptions: {
          executablePath,
          args: [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-quic"
          ]
        }
      }),
      instances: [{ browser: "chromium" }],
      // Wide enough for the components' tables; screenshots are cropped to the story.
      viewport: { width: 900, height: 900 }
    }
  }
})
