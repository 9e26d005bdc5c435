import { defineMain } from "@storybook/react-vite/node"
import { mockBuffer } from "./mockBuffer.ts"

export default defineMain({
  framework: "@storybook/react-vite",
  stories: ["../src/**/*.stories.tsx"],
  addons: ["@storybook/addon-docs", "@storybook/addon-a11y", "@storybook/addon-vitest"],
  // The msw service worker is served from here (`npx msw init storybook/public`).
  staticDirs: ["../public"],
  viteFinal: (config) => ({ ...config, plugins: [...(config.plugins ?? []), mockBuffer()] })
})
