// A script's session with the installed command line, run by `run.mjs` under `npx --package …
// -c`, so `lighthouse-effect` and `lhe` are whatever npx put on the PATH. It reads nothing but exit
// codes and `--json` output: `dev` on free ports, a wallet created without a prompt, an API key, an
// upload, a verified download compared byte for byte, a refused overwrite, and Ctrl-C ending
// `dev` with 130. Silent when every step holds; otherwise the failing step and its output, exit 1.
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"

const home = mkdtempSync(join(tmpdir(), "lighthouse-effect-cli-session-"))
let dev

const fail = (step, detail) => {
  process.stderr.write(`session: ${step}: ${detail}\n`)
  dev?.kill("SIGKILL")
  rmSync(home, { recursive: true, force: true })
  process.exit(1)
}

/** Runs the command line; resolves with its exit code, stdout and stderr. */
const cli = (bin, args, env) =>
  new Promise((resolve) => {
    const child = spawn(bin, args, { cwd: home, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => {
      stdout += chunk
    })
    child.stderr.on("data", (chunk) => {
      stderr += chunk
    })
    child.on("error", (error) => fail(`${bin} ${args.join(" ")}`, String(error)))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

/** The one JSON value a successful `--json` command printed, or the step fails. */
const succeeded = async (step, bin, args, env) => {
  const ran = await cli(bin, args, env)
  if (ran.code !== 0) fail(step, `exit ${ran.code}\nstdout: ${ran.stdout}\nstderr: ${ran.stderr}`)
  try {
    return JSON.parse(ran.stdout)
  } catch {
    return fail(step, `stdout is not one JSON value: ${ran.stdout}`)
  }
}

/** `dev` on free loopback ports: the `LIGHTHOUSE_*` variables of its one JSON line. */
const startDev = () =>
  new Promise((resolve) => {
    dev = spawn("lighthouse-effect", ["dev", "--free-ports", "--json"], {
      cwd: home,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stderr = ""
    dev.stderr.on("data", (chunk) => {
      stderr += chunk
    })
    dev.on("error", (error) => fail("dev", String(error)))
    dev.once("exit", (code) => fail("dev", `exited with ${code} before it was ready\n${stderr}`))
    createInterface({ input: dev.stdout }).once("line", (line) => resolve(JSON.parse(line).env))
  })

const hosts = await startDev()
const env = { ...hosts, XDG_CONFIG_HOME: home, LIGHTHOUSE_WALLET_PASSWORD: "a passphrase for the session" }

const wallet = await succeeded("wallet create", "lighthouse-effect", ["wallet", "create", "--json"], env)
if (!/^0x[0-9a-fA-F]{40}$/.test(wallet.address)) fail("wallet create", `no address in ${JSON.stringify(wallet)}`)
const keystoreMode = statSync(wallet.keystore).mode & 0o777
if (keystoreMode !== 0o600) fail("wallet create", `keystore mode ${keystoreMode.toString(8)}, not 600`)

const apiKey = await succeeded("api-key", "lhe", ["api-key", "--json"], env)
if (apiKey.address !== wallet.address) fail("api-key", `for ${apiKey.address}, not the wallet ${wallet.address}`)

const original = randomBytes(200_000)
writeFileSync(join(home, "data.bin"), original)
const { cid } = await succeeded("upload", "lighthouse-effect", ["upload", "data.bin", "--json"], env)

const copy = join(home, "copy.bin")
const downloaded = await succeeded("download", "lighthouse-effect", ["download", cid, "-o", copy, "--json"], env)
if (downloaded.verification?.verified !== true) fail("download", `not verified: ${JSON.stringify(downloaded)}`)
if (!readFileSync(copy).equals(original)) fail("download", "the copy's bytes differ from the upload's")

const again = await cli("lighthouse-effect", ["download", cid, "-o", copy, "--json"], env)
const refused = again.code === 1 && JSON.parse(again.stdout || "{}").error?._tag === "WouldOverwrite"
if (!refused) fail("download over a file", `exit ${again.code}\nstdout: ${again.stdout}\nstderr: ${again.stderr}`)

dev.removeAllListeners("exit")
const stopped = new Promise((resolve) => dev.once("exit", (code, signal) => resolve({ code, signal })))
dev.kill("SIGINT")
const { code, signal } = await stopped
if (code !== 130) fail("dev on SIGINT", `exit ${code} (signal ${signal}), not 130`)
rmSync(home, { recursive: true, force: true })
