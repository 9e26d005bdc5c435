/**
 * The executable against hostile input (issue 36, items 7 to 9), spawned as a script or a person
 * runs it, against `dev` over loopback:
 *
 * - log lines go to stderr: `cat CID > file` saves exactly the content and `download … --json`
 *   prints one JSON value while a gateway that refuses trustless answers makes the library warn,
 *   and with `--log-level debug` while a resume's check fails;
 * - names from the server and from the disk are printed escaped (an OSC 52 clipboard write,
 *   cursor moves, a newline forging a line), and exactly in JSON;
 * - hostile keystores are refused at once, typed: a pbkdf2 count of 2^31, a short MAC, `dklen` 16.
 */
import { spawn } from "node:child_process"
import { createCipheriv, pbkdf2Sync, randomBytes } from "node:crypto"
import { closeSync, openSync } from "node:fs"
import { mkdir, readFile, stat, writeFile } from "node:fs/promises"
import { createServer, request, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { keccak_256 } from "@noble/hashes/sha3.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshConfigHome } from "./support/commands.ts"
import { buildExecutable, type Dev, type Executable, runExecutable, startDev } from "./support/executable.ts"

const root = nodePath.resolve(nodePath.dirname(fileURLToPath(import.meta.url)), "..", "..")
let executable: Executable

/** Runs the executable with `args` and `env` (over a clean environment); killed after 45 s (a hang: code null). */
const cli = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>>, input?: string) =>
  runExecutable(executable, args, env, { timeoutMs: 45_000, ...(input === undefined ? {} : { input }) })

/** `… > file`: the executable's stdout is the file itself. */
const cliToFile = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>>, file: string) =>
  new Promise<{ readonly code: number | null; readonly stderr: string }>((resolve) => {
    const fd = openSync(file, "w")
    const child = spawn(process.execPath, [executable.bin, ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", fd, "pipe"],
      timeout: 45_000
    })
    closeSync(fd)
    let stderr = ""
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.once("close", (code) => resolve({ code, stderr }))
  })

/**
 * A gateway in front of `dev`'s that answers 406 to the next `refusals` trustless requests (a
 * CAR or a raw block asked for) and passes everything else through.
 */
let refusals = 0
let gatewayProxy: Server
const startGatewayProxy = (target: URL) =>
  new Promise<string>((resolve) => {
    gatewayProxy = createServer((incoming, answer) => {
      const url = new URL(incoming.url ?? "/", "http://proxy")
      const trustless =
        /^(car|raw)$/.test(url.searchParams.get("format") ?? "") ||
        /application\/vnd\.ipld\.(car|raw)/.test(incoming.headers.accept ?? "")
      if (trustless && refusals > 0) {
        refusals -= 1
        answer.writeHead(406, { "content-type": "text/plain" }).end("no trustless answers here")
        return
      }
      const forwarded = request(
        {
          host: target.hostname,
          port: target.port,
          path: incoming.url,
          method: incoming.method,
          headers: { ...incoming.headers, host: target.host }
        },
        (upstream) => {
          answer.writeHead(upstream.statusCode ?? 502, upstream.headers)
          upstream.pipe(answer)
        }
      )
      incoming.pipe(forwarded)
    })
    gatewayProxy.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(gatewayProxy.address() as AddressInfo).port}`)
    )
  })

let dev: Dev | undefined
let home: string
let env: Record<string, string>
/** `env` with the refusing gateway in front. */
let behindProxy: Record<string, string>

beforeAll(async () => {
  executable = await buildExecutable()
  dev = await startDev(executable)
  const hosts = dev.hosts
  home = await freshConfigHome()
  env = {
    ...hosts,
    XDG_CONFIG_HOME: home,
    LIGHTHOUSE_NODE_POLICY: "concurrent",
    LIGHTHOUSE_WALLET_PASSWORD: "a password for the test"
  }
  behindProxy = { ...env, LIGHTHOUSE_GATEWAY_URL: await startGatewayProxy(new URL(hosts.LIGHTHOUSE_GATEWAY_URL!)) }
  expect((await cli(["wallet", "create"], env)).code).toBe(0)
  expect((await cli(["api-key"], env)).code).toBe(0)
}, 120_000)

afterAll(async () => {
  await new Promise((resolve) => (gatewayProxy === undefined ? resolve(undefined) : gatewayProxy.close(resolve)))
  await dev?.stop()
  await executable?.remove()
})

/** Uploads `content` read from stdin under `name`; its CID. */
const uploadNamed = async (name: string, content: string) => {
  const uploaded = await cli(["upload", "-", "--name", name, "--json"], env, content)
  expect(uploaded.code, uploaded.stderr).toBe(0)
  return (JSON.parse(uploaded.stdout) as { cid: string }).cid
}

describe("log lines go to stderr, stdout holds only the content or the one JSON value", () => {
  const content = "hello\n"
  // The library's words for a file, the CLI's own for stdout: both on stderr, one line.
  const warning = (cid: string) =>
    expect.stringMatching(new RegExp(`^warning: Downloading ${cid} unverified: [^\\n]*406[^\\n]*\\n$`))

  it("`cat CID > file` saves exactly the content while the library warns of an unverified read", async () => {
    const cid = await uploadNamed("hello.txt", content)
    const saved = nodePath.join(home, "cat.out")
    refusals = Number.POSITIVE_INFINITY
    const ran = await cliToFile(["cat", cid, "--unverified"], behindProxy, saved)
    expect(ran).toEqual({ code: 0, stderr: warning(cid) })
    expect(await readFile(saved, "utf8")).toBe(content)
  })

  it("`download … --json` prints one JSON value, to a file and to stdout, the warning on stderr", async () => {
    const cid = await uploadNamed("hello.txt", content)
    const target = nodePath.join(home, "download.out")
    refusals = Number.POSITIVE_INFINITY
    const toFile = await cli(["download", cid, "-o", target, "--json", "--unverified"], behindProxy)
    expect({ code: toFile.code, stderr: toFile.stderr }).toEqual({ code: 0, stderr: warning(cid) })
    expect(JSON.parse(toFile.stdout)).toMatchObject({ cid, output: target, bytes: content.length })
    expect(await readFile(target, "utf8")).toBe(content)

    const toStdout = await cli(["download", cid, "-o", "-", "--json", "--unverified"], behindProxy)
    expect(toStdout.code, toStdout.stderr).toBe(0)
    expect(toStdout.stdout).toBe(content)
    const [logged, summary, ...rest] = toStdout.stderr.split(/(?<=\n)/)
    expect([logged, rest]).toEqual([warning(cid), []])
    expect(JSON.parse(summary!)).toMatchObject({ cid, output: "-", bytes: content.length })
  })

  it("--log-level: debug lines on stderr too (a resume's failed check), and none below the level asked", async () => {
    const cid = await uploadNamed("resumed.txt", content)
    const target = nodePath.join(home, "resumed.out")
    await writeFile(`${target}.partial`, content.slice(0, 3))
    refusals = 1
    const resumed = await cli(
      ["download", cid, "-o", target, "--resume", "--json", "--log-level", "debug"],
      behindProxy
    )
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(JSON.parse(resumed.stdout)).toMatchObject({ cid, output: target, bytes: content.length })
    expect(resumed.stderr).toContain(
      "debug: Resume: could not check the partial file with a gateway: The gateway cannot serve verifiable content: it answered 406 no trustless answers here\n"
    )
    expect(await readFile(target, "utf8")).toBe(content)

    refusals = Number.POSITIVE_INFINITY
    const quiet = await cliToFile(
      ["cat", cid, "--unverified", "--log-level", "error"],
      behindProxy,
      nodePath.join(home, "quiet.out")
    )
    expect(quiet).toEqual({ code: 0, stderr: "" })
  })
})

describe("names from the server and the disk are printed escaped, and exactly in JSON", () => {
  // An OSC 52 clipboard write, cursor up two lines and erase, and a newline forging a line of `uploads`.
  const hostile =
    "report\u001b]52;c;aGFja2Vk\u0007\u001b[2A\u001b[Kfine.pdf\nbafyforged  1  plain  forged-id  forged.txt"
  const escaped = "report\\x1b]52;c;aGFja2Vk\\x07\\x1b[2A\\x1b[Kfine.pdf\\nbafyforged  1  plain  forged-id  forged.txt"
  /** Human output: lines of text, each ended by the one newline, no other control character. */
  const controls = /[\p{Cc}]/gu
  const rawControls = (text: string) => text.replace(/\n/g, "").match(controls) ?? []

  it("uploads and info (as any account may ask) escape the name; --json gives it exactly", async () => {
    const cid = await uploadNamed(hostile, "x")
    const [listed, listedJson, info, infoJson] = await Promise.all([
      cli(["uploads"], env),
      cli(["uploads", "--json"], env),
      cli(["info", cid], { ...env, XDG_CONFIG_HOME: await freshConfigHome() }),
      cli(["info", cid, "--json"], env)
    ])
    const record = (JSON.parse(listedJson.stdout) as ReadonlyArray<{ cid: string; fileName: string; id: string }>).find(
      (r) => r.cid === cid
    )
    expect(record?.fileName).toBe(hostile)
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout.split("\n")).toContain(`${cid}  1  plain  ${record?.id}  ${escaped}`)
    expect(rawControls(listed.stdout)).toEqual([])

    const recorded = JSON.parse(infoJson.stdout) as { fileName: string; mimeType?: string }
    expect(recorded.fileName).toBe(hostile)
    expect(info).toEqual({ code: 0, stdout: `${cid}  ${escaped}  1 bytes  ${recorded.mimeType ?? "-"}\n`, stderr: "" })
  })

  it("a folder's upload escapes the local name it prints", async () => {
    const name = "red\u001b[31m\u009b2J\u202etxt.exe"
    const folder = nodePath.join(home, name)
    await mkdir(folder, { recursive: true })
    await writeFile(nodePath.join(folder, "plain.txt"), "plain")
    const [uploaded, json] = await Promise.all([cli(["upload", folder], env), cli(["upload", folder, "--json"], env)])
    const { uploads } = JSON.parse(json.stdout) as {
      uploads: ReadonlyArray<{ cid: string; name: string; storedBytes: number }>
    }
    const entry = uploads[0]!
    expect(entry.name).toBe(name)
    expect(uploaded).toEqual({
      code: 0,
      stdout: `${entry.cid}  red\\x1b[31m\\x9b2J\\u{202e}txt.exe  ${entry.storedBytes} bytes stored\n`,
      stderr: ""
    })
  })

  it("a failure naming a local file escapes it on stderr, and gives it exactly in JSON", async () => {
    const cid = await uploadNamed("hello.txt", "hello\n")
    const target = nodePath.join(home, "taken\u001b]0;title\u0007")
    await writeFile(target, "already here")
    const refused = await cli(["download", cid, "-o", target, "--json"], env)
    const message = `${target} exists: pass --force to replace it`
    expect(refused).toEqual({
      code: 1,
      stdout: `${JSON.stringify({ error: { _tag: "WouldOverwrite", message } })}\n`,
      stderr: `${nodePath.join(home, "taken\\x1b]0;title\\x07")} exists: pass --force to replace it\n`
    })
  })
})

describe("hostile keystores are refused at once, typed", () => {
  const password = "the keystore's password"
  const privateKey = Buffer.from("4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318", "hex")

  /** A v3 pbkdf2 keystore of `privateKey` under `password`, with `overrides` of what it states. */
  const pbkdf2Keystore = (options: { readonly c: number; readonly dklen: number; readonly macBytes?: number }) => {
    const salt = randomBytes(32)
    const iv = randomBytes(16)
    // A count too large to derive here is never derived by a reader that refuses it: any MAC will do.
    const derived =
      options.c <= 100_000 ? pbkdf2Sync(password, salt, options.c, options.dklen, "sha256") : randomBytes(32)
    const cipher = createCipheriv("aes-128-ctr", derived.subarray(0, 16), iv)
    const ciphertext = Buffer.concat([cipher.update(privateKey), cipher.final()])
    const mac = Buffer.from(keccak_256(Buffer.concat([derived.subarray(16, 32), ciphertext])))
    return JSON.stringify({
      version: 3,
      id: "3198bc9c-6672-5ab3-d995-4942343ae5b6",
      address: "2c7536e3605d9c16a7a3d7b1898e529396a65c23",
      crypto: {
        cipher: "aes-128-ctr",
        cipherparams: { iv: iv.toString("hex") },
        ciphertext: ciphertext.toString("hex"),
        kdf: "pbkdf2",
        kdfparams: { c: options.c, dklen: options.dklen, prf: "hmac-sha256", salt: salt.toString("hex") },
        mac: mac.subarray(0, options.macBytes ?? 32).toString("hex")
      }
    })
  }

  /** `wallet import --keystore` of `keystore` with `importPassword`, in a fresh config home. */
  const importKeystore = async (keystore: string, importPassword: string) => {
    const configHome = await freshConfigHome()
    const file = nodePath.join(configHome, "hostile.json")
    await writeFile(file, keystore)
    const ran = await cli(["wallet", "import", "--keystore", file, "--json"], {
      ...env,
      XDG_CONFIG_HOME: configHome,
      LIGHTHOUSE_WALLET_PASSWORD: importPassword
    })
    const stored = await stat(nodePath.join(configHome, "lighthouse-effect", "keystore.json")).then(
      () => true,
      () => false
    )
    return { ...ran, stored }
  }

  const refused = (message: string) => ({
    code: 1,
    stdout: `${JSON.stringify({ error: { _tag: "KeystoreError", message } })}\n`,
    stderr: `${message}\n`,
    stored: false
  })

  it("imports a sound pbkdf2 keystore (the checks refuse only what they should)", async () => {
    const ran = await importKeystore(pbkdf2Keystore({ c: 1000, dklen: 32 }), password)
    expect(ran.code, ran.stderr).toBe(0)
    expect(JSON.parse(ran.stdout)).toMatchObject({ address: "0x2c7536e3605d9c16a7a3d7b1898e529396a65c23" })
    expect(ran.stored).toBe(true)
  })

  it("a pbkdf2 count of 2^31 fails at once, not after an hour", async () => {
    const ran = await importKeystore(pbkdf2Keystore({ c: 2 ** 31, dklen: 32 }), password)
    expect(ran).toMatchObject(refused("keystore refused: pbkdf2 count c is 2147483648: it must be from 1 to 16777216"))
  })

  it("a scrypt asking for an hour of work (n 2^18, r 8, p 64) fails at once", async () => {
    const keystore = JSON.parse(pbkdf2Keystore({ c: 1000, dklen: 32 })) as { crypto: Record<string, unknown> }
    keystore.crypto.kdf = "scrypt"
    keystore.crypto.kdfparams = { n: 2 ** 18, r: 8, p: 64, dklen: 32, salt: "00".repeat(32) }
    const ran = await importKeystore(JSON.stringify(keystore), password)
    expect(ran).toMatchObject(refused("keystore refused: scrypt work n·r·p is 134217728; at most 2097152 is allowed"))
  })

  it("a short MAC is a KeystoreError, not an untyped failure", async () => {
    const ran = await importKeystore(pbkdf2Keystore({ c: 1000, dklen: 32, macBytes: 16 }), password)
    expect(ran).toMatchObject(refused("keystore refused: the MAC is 16 bytes: it must be 32 (keccak-256)"))
  })

  it("dklen 16 is refused: its MAC covers no key, so a wrong password would open it", async () => {
    const ran = await importKeystore(pbkdf2Keystore({ c: 1000, dklen: 16 }), "not the password")
    expect(ran).toMatchObject(
      refused("keystore refused: dklen is 16: it must be 32 (the MAC covers the derived key's second half)")
    )
  })
})
