// The root `prepare` script: completes an install of this repository made by npm on an old Node.
//
// npm skips an optional native package whose `engines` its own Node does not meet: run on Node 20,
// `npm ci` leaves out Hardhat's `@nomicfoundation/edr-*` binary (it wants Node ≥ 22). This script
// runs on the Node 24 of the `node` devDependency (npm puts node_modules/.bin first on a script's
// PATH); when npm itself ran on an older Node (its user agent says which), npm's own CLI installs
// once more under Node 24, which brings what was skipped.
//
// Why `prepare` and not `postinstall`: npm runs a package's `postinstall` wherever the package is
// installed, so a published `postinstall` runs in every user's project, where this file (not in
// `files`) does not exist and the install fails. npm runs `prepare` only in the project's own
// checkout (`npm install`, `npm ci`) and when packing, never for a package installed from a tarball
// or the registry. `npm pack` never sees it either: `tooling/pack.mjs` leaves the packed manifest
// without scripts. Only an install acts, so a pack on Node 20 installs nothing.
import { spawnSync } from "node:child_process"

const installing = ["install", "ci"].includes(process.env.npm_command ?? "")
const npmNode = /\bnode\/v(\d+)\.(\d+)/.exec(process.env.npm_config_user_agent ?? "")
const npmRanOnOldNode =
  npmNode !== null && (Number(npmNode[1]) < 22 || (Number(npmNode[1]) === 22 && Number(npmNode[2]) < 19))

if (installing && npmRanOnOldNode && process.env.npm_execpath) {
  const result = spawnSync(
    process.execPath,
    [
      process.env.npm_execpath,
      "install",
      "--no-save",
      "--ignore-scripts",
      "--no-audit",
      "--no-fund",
      "--loglevel=error"
    ],
    { stdio: "inherit" }
  )
  process.exit(result.status ?? 1)
}
