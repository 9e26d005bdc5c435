#!/usr/bin/env node
/**
 * The `lighthouse-effect` executable. It first turns on Node's compile cache (Node ≥ 22.1): the
 * V8 code of the command line is kept on disk (in the system's temporary folder, or where
 * `NODE_COMPILE_CACHE` says), so that every start after the first skips compiling it. Then it
 * loads the command line itself (`Program.ts`), which the cache then covers.
 *
 * @since 0.1.0
 */
import * as NodeModule from "node:module"

NodeModule.enableCompileCache?.()
await import("./Program.ts")
