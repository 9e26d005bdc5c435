/**
 * What the library can tell about the runtime it runs in, for the choices that depend on it.
 *
 * @internal
 */

/**
 * Whether this runtime is Node or implements it: Bun, Deno and Node-compatible workers also
 * report `process.versions.node`.
 */
export const isNode: boolean =
  typeof globalThis.process !== "undefined" && typeof globalThis.process.versions?.node === "string"

/**
 * Whether this is Node itself, not a runtime that implements its APIs: Bun's and Deno's `node:http`
 * are built on their own `fetch`, which may keep a request body's chunks after taking them.
 */
export const isNodeItself: boolean =
  isNode && globalThis.process.release?.name === "node" && !("Bun" in globalThis) && !("Deno" in globalThis)
