// `npm pack` / `npm publish` ship a package.json without `scripts` (`prepack` runs `strip` after
// the build, `postpack` runs `restore`).
//
// Every script of this repository runs one of its own files (tooling/, scripts/, the configs) that
// the tarball does not ship, and npm runs a package's install scripts in every project that
// installs it: a packed `postinstall` made `npm install lighthouse-effect` fail. A user's project
// has no use for the others either. npm puts package.json into the tarball as it is on disk after
// `prepack`, and runs `postpack` from the manifest it read before, so `strip` writes the manifest
// without `scripts` and keeps the original beside it, and `restore` puts the original back byte
// for byte. The consumer test checks the installed manifest (no script naming a missing file).
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const manifest = fileURLToPath(new URL("../package.json", import.meta.url))
const kept = fileURLToPath(new URL(".package.json.before-pack", import.meta.url))

const stop = (line) => {
  process.stderr.write(`${line}\n`)
  process.exit(1)
}

const strip = () => {
  if (existsSync(kept))
    stop(
      "tooling/.package.json.before-pack exists: an earlier npm pack stopped before postpack, so package.json may " +
        "lack its scripts; put it back (mv tooling/.package.json.before-pack package.json) and pack again"
    )
  const original = readFileSync(manifest, "utf8")
  writeFileSync(kept, original)
  const { scripts: _repositoryScripts, ...published } = JSON.parse(original)
  writeFileSync(manifest, `${JSON.stringify(published, null, 2)}\n`)
}

const restore = () => {
  if (!existsSync(kept)) stop("tooling/.package.json.before-pack is missing: nothing to restore package.json from")
  renameSync(kept, manifest)
}

const steps = { strip, restore }
const step = steps[process.argv[2]]
if (step === undefined) stop(`usage: node tooling/pack.mjs ${Object.keys(steps).join("|")}`)
step()
