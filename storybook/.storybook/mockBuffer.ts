import { fileURLToPath } from "node:url"
import type { Plugin } from "vite"

const shim = fileURLToPath(new URL("../src/demo/bufferShim.ts", import.meta.url))

/**
 * `mocks/src/keyNodes/Auth.ts` uses Node's global `Buffer`, which browsers lack: this gives that
 * one module a local `Buffer` (`src/demo/bufferShim.ts`) instead of installing a global one.
 */
export const mockBuffer = (): Plugin => ({
  name: "lighthouse-effect:mock-buffer",
  enforce: "pre",
  transform(code, id) {
    if (!id.replaceAll("\\", "/").endsWith("/mocks/src/keyNodes/Auth.ts") || !/\bBuffer\./.test(code)) return null
    return { code: `import { Buffer } from ${JSON.stringify(shim)}\n${code}`, map: null }
  }
})
