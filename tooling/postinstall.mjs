// npm skips an optional native package whose `engines` its own Node does not meet: run on Node 20,
// `npm ci` leaves out Hardhat's `@nomicfoundation/edr-*` binary (it wants Node ≥ 22). This script
// runs as the root `postinstall`, on the Node 24 of the `node` devDependency (npm puts
// node_modules/.bin first on a script's PATH); when npm itself ran on an older Node (its user
// agent says which), npm's own CLI installs once more under Node 24, which brings what was skipped.
import { spawnSync } from "node:child_process"

const npmNode = /\bnode\/v(\d+)\.(\d+)/.exec(process.env.npm_config_user_agent ?? "")
const npmRanOnOldNode =
  npmNode !== null && (Number(npmNode[1]) < 22 || (Number(npmNode[1]) === 22 && Number(npmNode[2]) < 19))

if (npmRanOnOldNode && process.env.npm_execpath) {
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
