import { defineMain } from "@storybook/react-vite/node"

// Pre-bundled up front: optimising one on first use reloads the page under a running story or test.
const browserDependencies = [
  "@storybook/addon-a11y",
  "@storybook/addon-docs",
  "@ipld/car",
  "@ipld/dag-pb",
  "@noble/curves/abstract/modular.js",
  "@noble/curves/ed25519.js",
  "effect",
  "effect/encoding",
  "effect/http",
  "ipfs-unixfs-importer",
  "ipfs-unixfs",
  "jose",
  "msw",
  "msw/browser",
  "multiformats/bases/base16",
  "multiformats/bases/base32",
  "multiformats/bases/base36",
  "multiformats/bases/base58",
  "multiformats/cid",
  "multiformats/codecs/raw",
  "multiformats/hashes/digest",
  "multiformats/hashes/identity",
  "multiformats/hashes/sha2",
  "viem",
  "viem/accounts",
  "viem/chains",
  "react/jsx-dev-runtime"
]

export default defineMain({
  framework: "@storybook/react-vite",
  stories: ["../src/**/*.stories.tsx"],
  addons: ["@storybook/addon-docs", "@storybook/addon-a11y", "@storybook/addon-vitest"],
  // The msw service worker is served from here (`npx msw init storybook/public`).
  staticDirs: ["../public"],
  viteFinal: (config) => ({
    ...config,
    optimizeDeps: {
      ...config.optimizeDeps,
      include: [...(config.optimizeDeps?.include ?? []), ...browserDependencies]
    }
  })
})
