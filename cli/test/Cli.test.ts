/**
 * The command line in process against the in-process mock network: the script contract (exit
 * codes, one JSON value on stdout, the catalogue's message on stderr, no prompt without a
 * terminal), the keystore (modes, opened by an independent reading of the v3 format, the
 * provider's keystores), and each command over
 * the library's services.
 */
import { execFileSync } from "node:child_process"
import { createDecipheriv, scryptSync } from "node:crypto"
import { mkdir, readFile, stat, writeFile } from "node:fs/promises"
import { join } from "node:path"
import lighthouse from "@lighthouse-web3/sdk"
import { type RunningMockNetwork, startMockNetwork } from "lighthouse-effect/mocks/node"
import { concat, type Hex, keccak256, toHex } from "viem"
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshConfigHome, json, run } from "./support/commands.ts"

let mock: RunningMockNetwork
/** How far the network's clock is ahead of the machine's (PDP deals show up 20 minutes after a request). */
let clockAhead = 0
beforeAll(() => {
  mock = startMockNetwork({ onUnhandledFrame: "error", clock: () => Date.now() + clockAhead })
})
afterAll(() => mock.close())

const base = { LIGHTHOUSE_NODE_POLICY: "concurrent" }
const password = "correct horse battery staple"

/** The v3 keystore's scrypt and AES-128-CTR fields (Web3 Secret Storage). */
interface V3Keystore {
  readonly crypto: {
    readonly ciphertext: string
    readonly cipherparams: { readonly iv: string }
    readonly kdfparams: {
      readonly n: number
      readonly r: number
      readonly p: number
      readonly dklen: number
      readonly salt: string
    }
    readonly mac: string
  }
}

/**
 * The private key of a v3 keystore, read as the Web3 Secret Storage definition says
 * (https://ethereum.org/developers/docs/data-structures-and-encoding/web3-secret-storage/), with
 * node:crypto and viem's keccak256 rather than the command line's own code; `undefined` when the
 * MAC does not match the password.
 */
const openV3 = (text: string, password: string): Hex | undefined => {
  const { crypto } = JSON.parse(text) as V3Keystore
  const { n, r, p, dklen, salt } = crypto.kdfparams
  const derived = scryptSync(password, Buffer.from(salt, "hex"), dklen, { N: n, r, p, maxmem: 256 * n * r })
  const ciphertext = Buffer.from(crypto.ciphertext, "hex")
  if (keccak256(concat([toHex(derived.subarray(16, 32)), toHex(ciphertext)])) !== `0x${crypto.mac}`) return undefined
  const decipher = createDecipheriv("aes-128-ctr", derived.subarray(0, 16), Buffer.from(crypto.cipherparams.iv, "hex"))
  return toHex(Buffer.concat([decipher.update(ciphertext), decipher.final()]))
}

/** A config home with a wallet and a saved API key. */
const account = async () => {
  const home = await freshConfigHome()
  const env = { ...base, XDG_CONFIG_HOME: home, LIGHTHOUSE_WALLET_PASSWORD: password }
  const created = await run(["wallet", "create", "--json"], env)
  expect(created.code, created.stderr).toBe(0)
  const apiKey = await run(["api-key", "--json"], env)
  expect(apiKey.code, apiKey.stderr).toBe(0)
  return { env, home, address: (json(created) as { address: string }).address }
}

/** `length` letters cycling through a–z `step` at a time (another `step`, another file). */
const letters = (length: number, step: number) =>
  Array.from({ length }, (_, i) => String.fromCharCode(97 + ((i * step) % 26))).join("")

/** Runs `args` and counts the body bytes the gateway answers meanwhile. */
const runCountingGatewayBytes = async (args: ReadonlyArray<string>, env: Readonly<Record<string, string>>) => {
  let served = 0
  const reading: Array<Promise<void>> = []
  const count = ({ request, response }: { request: Request; response: Response }) => {
    if (new URL(request.url).host !== "gateway.lighthouse.storage") return
    reading.push(
      response
        .clone()
        .arrayBuffer()
        .then((body) => {
          served += body.byteLength
        })
    )
  }
  mock.server.events.on("response:mocked", count)
  try {
    const ran = await run(args, env)
    await Promise.all(reading)
    return { ran, served }
  } finally {
    mock.server.events.removeListener("response:mocked", count)
  }
}

describe("the script contract", () => {
  it("prints completion scripts for bash, zsh and fish that name every command", async () => {
    const [bash, zsh, fish] = await Promise.all(
      ["bash", "zsh", "fish"].map((shell) => run(["--completions", shell], base))
    )
    for (const script of [bash, zsh, fish]) {
      expect(script).toMatchObject({ code: 0, stderr: "" })
      for (const command of ["upload", "download", "pdp", "delegate", "keys"]) expect(script?.stdout).toContain(command)
    }
    expect(zsh?.stdout.startsWith("#compdef lighthouse-effect lhe\n")).toBe(true)
    expect(fish?.stdout).toContain("complete -c lighthouse-effect -n '__fish_seen_subcommand_from pdp;")
    // bash parses it (`-n`: read, not run).
    expect(() => execFileSync("bash", ["-n"], { input: bash?.stdout, stdio: ["pipe", "pipe", "pipe"] })).not.toThrow()
  })

  it("a failure exits 1 with the catalogue's message on stderr and {error} on stdout", async () => {
    const ran = await run(["info", "not-a-cid", "--json"], base)
    expect(ran).toMatchObject({ code: 1, stderr: "Invalid CID\n" })
    expect(json(ran)).toEqual({ error: { _tag: "InvalidCid", message: "Invalid CID" } })
    const text = await run(["info", "not-a-cid"], base)
    expect(text).toMatchObject({ code: 1, stdout: "", stderr: "Invalid CID\n" })
  })

  it("bad usage exits 2: an unknown command, a missing argument, no command", async () => {
    const unknown = await run(["uplod", "--json"], base)
    expect(unknown.code).toBe(2)
    expect(json(unknown)).toMatchObject({ error: { _tag: "UnknownSubcommand" } })
    expect(unknown.stderr).toBe(
      `Unknown subcommand "uplod" for "lighthouse-effect" (did you mean upload?)\nRun 'lighthouse-effect --help' for usage.\n`
    )
    const missing = await run(["download"], base)
    expect(missing).toMatchObject({ code: 2, stdout: "" })
    expect(missing.stderr).toContain("cid")
    expect((await run([], base)).code).toBe(2)
    const help = await run(["--help"], base)
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("upload")
  })

  it("never prompts without a terminal: a missing secret names its flag and variable", async () => {
    const home = await freshConfigHome()
    const noKey = await run(["uploads", "--json"], { ...base, XDG_CONFIG_HOME: home })
    expect(noKey.code).toBe(2)
    expect(json(noKey)).toEqual({
      error: {
        _tag: "UsageError",
        message:
          "An API key is needed: set LIGHTHOUSE_API_KEY, pass --api-key-file FILE, or run `lighthouse-effect api-key` to get one with your wallet"
      }
    })
    const noPassword = await run(["wallet", "create"], { ...base, XDG_CONFIG_HOME: home })
    expect(noPassword).toMatchObject({
      code: 2,
      stderr:
        "The wallet's password is needed: pass --password-file FILE or set LIGHTHOUSE_WALLET_PASSWORD (there is no terminal to ask on)\n"
    })
    await expect(stat(join(home, "lighthouse-effect", "keystore.json"))).rejects.toThrow("ENOENT")
  })
})

describe("wallet", () => {
  it("writes a v3 keystore 0600 in a 0700 directory that the format's definition opens; never prints the key", async () => {
    const { env, home, address } = await account()
    const dir = join(home, "lighthouse-effect")
    expect((await stat(dir)).mode & 0o777).toBe(0o700)
    expect((await stat(join(dir, "keystore.json"))).mode & 0o777).toBe(0o600)
    expect((await stat(join(dir, "config.json"))).mode & 0o777).toBe(0o600)
    const keystore = await readFile(join(dir, "keystore.json"), "utf8")
    expect(JSON.parse(keystore)).toMatchObject({ version: 3, crypto: { kdf: "scrypt", cipher: "aes-128-ctr" } })
    expect(openV3(keystore, "wrong")).toBeUndefined()
    const privateKey = openV3(keystore, password)!
    expect(privateKeyToAddress(privateKey).toLowerCase()).toBe(address)
    const shown = await run(["wallet", "--json"], env)
    expect(json(shown)).toEqual({ address, keystore: join(dir, "keystore.json") })
    expect(shown.stdout).not.toContain(privateKey.slice(2))
    const again = await run(["wallet", "create"], env)
    expect(again).toMatchObject({
      code: 1,
      stderr: `${join(dir, "keystore.json")} exists: pass --force to replace it\n`
    })
    const wrong = await run(["api-key"], { ...env, LIGHTHOUSE_WALLET_PASSWORD: "wrong" })
    expect(wrong).toMatchObject({ code: 1, stderr: "wrong password for this keystore\n" })
  })

  it("opens the keystore the provider's createWallet writes", async () => {
    const { data } = await lighthouse.createWallet(password)
    const file = join(await freshConfigHome(), "provider-keystore.json")
    await writeFile(file, data.encryptedWallet)
    const home = await freshConfigHome()
    const env = { ...base, XDG_CONFIG_HOME: home, LIGHTHOUSE_WALLET_PASSWORD: password }
    const imported = await run(["wallet", "import", "--keystore", file, "--json"], env)
    expect(imported.code, imported.stderr).toBe(0)
    const address = `0x${(JSON.parse(data.encryptedWallet) as { address: string }).address.toLowerCase()}`
    expect(json(imported)).toMatchObject({ address })
    expect((await stat(join(home, "lighthouse-effect", "keystore.json"))).mode & 0o777).toBe(0o600)

    // The provider CLI's own store (`conf` under the same config home): wallet and API key.
    const providerHome = await freshConfigHome()
    await mkdir(join(providerHome, "@lighthouse-web3", "sdk-nodejs"), { recursive: true })
    const providerConfig = { LIGHTHOUSE_GLOBAL_WALLET: data.encryptedWallet, LIGHTHOUSE_GLOBAL_API_KEY: "provider-key" }
    await writeFile(join(providerHome, "@lighthouse-web3", "sdk-nodejs", "config.json"), JSON.stringify(providerConfig))
    const providerEnv = { ...env, XDG_CONFIG_HOME: providerHome }
    const fromProvider = await run(["wallet", "import", "--from-provider", "--json"], providerEnv)
    expect(fromProvider.code, fromProvider.stderr).toBe(0)
    expect(json(fromProvider)).toMatchObject({ address, apiKey: true })
    const saved = JSON.parse(await readFile(join(providerHome, "lighthouse-effect", "config.json"), "utf8"))
    expect(saved).toEqual({ apiKey: "provider-key" })
  })

  it("imports a private key from stdin, never from argv", async () => {
    const key = generatePrivateKey()
    const home = await freshConfigHome()
    const env = { ...base, XDG_CONFIG_HOME: home, LIGHTHOUSE_WALLET_PASSWORD: password }
    const imported = await run(["wallet", "import", "--private-key-file", "-", "--json"], env, `${key}\n`)
    expect(imported.code, imported.stderr).toBe(0)
    expect(json(imported)).toMatchObject({ address: privateKeyToAccount(key).address.toLowerCase() })
    expect(imported.stdout).not.toContain(key.slice(2))
  })
})

describe("content", () => {
  it("uploads stdin, lists every page, downloads verified, refuses to overwrite", async () => {
    const { env, home } = await account()
    const uploaded = await run(["upload", "-", "--name", "note.txt", "--json"], env, "hello from stdin\n")
    expect(uploaded.code, uploaded.stderr).toBe(0)
    const { cid } = json(uploaded) as { cid: string }
    expect(json(uploaded)).toEqual({ cid, name: "note.txt", storedBytes: 17 })
    const listed = await run(["uploads", "--json"], env)
    expect((json(listed) as Array<{ cid: string }>).map((f) => f.cid)).toEqual([cid])
    const target = join(home, "note.txt")
    const downloaded = await run(["download", cid, "-o", target, "--json"], env)
    expect(json(downloaded)).toEqual({ cid, output: target, bytes: 17, verification: { verified: true } })
    expect(await readFile(target, "utf8")).toBe("hello from stdin\n")
    const refused = await run(["download", cid, "-o", target, "--json"], env)
    expect(refused.code).toBe(1)
    expect(json(refused)).toEqual({
      error: { _tag: "WouldOverwrite", message: `${target} exists: pass --force to replace it` }
    })
    const cat = await run(["cat", cid, "--json"], env)
    expect(cat.stdout).toBe("hello from stdin\n")
    expect(JSON.parse(cat.stderr)).toEqual({ cid, bytes: 17, verification: { verified: true } })
    const verified = await run(["verify", cid, "--json"], env)
    expect(json(verified)).toEqual({ cid, verified: true, bytes: 17 })
  })

  it("download --resume goes on after the verified part of <file>.partial, fetching only the rest", async () => {
    const { env, home } = await account()
    const text = letters(700 * 1024, 7)
    const { cid } = json(await run(["upload", "-", "--json"], env, text)) as { cid: string }
    const target = join(home, "big.txt")
    // Two whole leaves (512 KiB) on disk, the second with one byte altered: only the first is kept.
    const partial = Buffer.from(text.slice(0, 512 * 1024))
    partial[300 * 1024] = 0x21
    await writeFile(`${target}.partial`, partial)
    const { ran: resumed, served } = await runCountingGatewayBytes(
      ["download", cid, "-o", target, "--resume", "--json"],
      env
    )
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(json(resumed)).toEqual({ cid, output: target, bytes: 700 * 1024, verification: { verified: true } })
    expect(await readFile(target, "utf8")).toBe(text)
    expect(served).toBeGreaterThan(700 * 1024 - 256 * 1024)
    expect(served).toBeLessThan(700 * 1024 - 256 * 1024 + 16 * 1024)
    await expect(stat(`${target}.partial`)).rejects.toThrow(/ENOENT/)
  })

  it("download --decrypt --resume goes on after the verified ciphertext in <file>.partial, then decrypts", async () => {
    const { env, home } = await account()
    const text = letters(700 * 1024, 11)
    const { cid } = json(await run(["upload", "-", "--encrypted", "--json"], env, text)) as { cid: string }
    // The stored bytes (the ciphertext), as the gateway gives them; two whole leaves of it on disk.
    const stored = new Uint8Array(
      await (await fetch(`https://gateway.lighthouse.storage/api/v0/cat/${cid}`, { method: "POST" })).arrayBuffer()
    )
    expect(stored.length).toBe(700 * 1024 + 44)
    const target = join(home, "secret.txt")
    await writeFile(`${target}.partial`, stored.subarray(0, 512 * 1024))
    const { ran: resumed, served } = await runCountingGatewayBytes(
      ["download", cid, "-o", target, "--decrypt", "--resume", "--json"],
      env
    )
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(json(resumed)).toEqual({ cid, output: target, bytes: 700 * 1024, verification: { verified: true } })
    expect(await readFile(target, "utf8")).toBe(text)
    expect(served).toBeGreaterThan(700 * 1024 + 44 - 512 * 1024)
    expect(served).toBeLessThan(700 * 1024 + 44 - 512 * 1024 + 16 * 1024)
    await expect(stat(`${target}.partial`)).rejects.toThrow(/ENOENT/)
  })

  it("a gateway that lies fails verification with exit 1", async () => {
    const { env } = await account()
    const { cid } = json(await run(["upload", "-", "--json"], env, "checked\n")) as { cid: string }
    const lie = mock.network.faults.lie({ host: "gateway" }, "other-file")
    const ran = await run(["verify", cid, "--json"], env)
    mock.network.faults.remove(lie)
    expect(ran.code).toBe(1)
    expect(json(ran)).toMatchObject({ error: { _tag: "ContentVerificationFailed" } })
  })

  it("encrypts with the wallet, decrypts with --decrypt, shares with another address", async () => {
    const { env, home } = await account()
    const uploaded = await run(["upload", "-", "--encrypted", "--name", "secret.txt", "--json"], env, "for my eyes\n")
    expect(uploaded.code, uploaded.stderr).toBe(0)
    const { cid } = json(uploaded) as { cid: string }
    const target = join(home, "secret.txt")
    const plain = await run(["download", cid, "-o", target, "--decrypt"], env)
    expect(plain.code, plain.stderr).toBe(0)
    expect(await readFile(target, "utf8")).toBe("for my eyes\n")
    const stored = await run(["cat", cid], env)
    expect(stored.stdout).not.toContain("for my eyes")
    const other = privateKeyToAccount(generatePrivateKey())
    const shared = await run(["share", cid, other.address, "--json"], env)
    expect(shared.code, shared.stderr).toBe(0)
    expect(json(shared)).toMatchObject({ cid, sharedWith: other.address })
  })

  it("IPNS keys: generate, publish, list, remove", async () => {
    const { env } = await account()
    const { cid } = json(await run(["upload", "-", "--json"], env, "named\n")) as { cid: string }
    const key = json(await run(["keys", "generate", "--json"], env)) as { ipnsName: string; ipnsId: string }
    const published = await run(["ipns", "publish", key.ipnsName, cid, "--json"], env)
    expect(json(published)).toEqual({ Name: key.ipnsId, Value: `/ipfs/${cid}` })
    const listed = await run(["keys", "list", "--json"], env)
    expect(json(listed)).toMatchObject([{ ipnsName: key.ipnsName, ipnsId: key.ipnsId, cid }])
    const removed = await run(["keys", "remove", key.ipnsName], env)
    expect(removed).toMatchObject({ code: 0, stdout: `removed ${key.ipnsName}\n` })
  })

  it("pins another account's content; PDP deals: status, request, wait until completed", async () => {
    const owner = await account()
    const { cid } = json(await run(["upload", "-", "--json"], owner.env, "kept twice\n")) as { cid: string }
    const { env, address } = await account()
    const pinned = await run(["pin", cid, "--name", "kept.txt", "--json"], env)
    expect(pinned.code, pinned.stderr).toBe(0)
    expect(json(pinned)).toMatchObject({ cid, fileName: "kept.txt", publicKey: address })
    expect(json(await run(["uploads", "--json"], env))).toMatchObject([{ cid, fileName: "kept.txt" }])

    expect(await run(["pdp", "status", cid], env)).toMatchObject({ code: 0, stdout: `no PDP deal for ${cid} yet\n` })
    expect(json(await run(["pdp", "request", cid, "--json"], env))).toEqual({ cid, requested: true })
    const early = await run(["pdp", "wait", cid, "--interval", "1", "--timeout", "1", "--json"], env)
    expect(early.code).toBe(1)
    expect(json(early)).toMatchObject({ error: { _tag: "PdpDealTimedOut" } })
    clockAhead = 21 * 60 * 1000
    try {
      const waited = await run(["pdp", "wait", cid, "--interval", "1", "--timeout", "30", "--json"], env)
      expect(waited.code, waited.stderr).toBe(0)
      expect(json(waited)).toMatchObject({ cid, publicKey: address.toLowerCase(), dealStatus: "completed" })
    } finally {
      clockAhead = 0
    }
  })

  it("transfers an encrypted file's ownership; delegates every file, then revokes the delegates", async () => {
    const { env } = await account()
    const { cid } = json(await run(["upload", "-", "--encrypted", "--json"], env, "to hand over\n")) as { cid: string }
    const [heir, delegate] = [privateKeyToAccount(generatePrivateKey()), privateKeyToAccount(generatePrivateKey())]
    const delegated = await run(["delegate", delegate.address, "--json"], env)
    expect(delegated.code, delegated.stderr).toBe(0)
    expect(json(delegated)).toMatchObject({ delegates: [delegate.address] })
    const revoked = await run(["undelegate"], env)
    expect(revoked).toMatchObject({ code: 0, stdout: "the wallet has no delegates now\n" })
    const badDelegate = await run(["delegate", "0x1234", "--json"], env)
    expect(badDelegate.code).toBe(1)
    expect(json(badDelegate)).toMatchObject({ error: { _tag: "InvalidPublicKey" } })

    const transferred = await run(["transfer", cid, heir.address, "--json"], env)
    expect(transferred.code, transferred.stderr).toBe(0)
    expect(json(transferred)).toMatchObject({ cid, newOwner: heir.address })
    const notOwner = await run(["share", cid, delegate.address, "--json"], env)
    expect(notOwner.code).toBe(1)
    expect(json(notOwner)).toMatchObject({ error: { _tag: "AccessDenied" } })
  })
})
