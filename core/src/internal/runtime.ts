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
