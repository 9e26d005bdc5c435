/**
 * Folders through the command line: `upload DIR`, `ls CID` (and `-r`, `--json`), `download CID
 * -o OUT` gives back the same tree (`diff -r`), `cat CID/sub/file` and `/ipfs/CID/sub/file` print
 * that file, `verify CID` checks the whole tree, and `cat` of a folder says it is a folder.
 */
import { execFileSync } from "node:child_process"
import { mkdir, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { type RunningMockNetwork, startMockNetwork } from "lighthouse-effect/mocks/node"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshConfigHome, json, run } from "./support/commands.ts"

let mock: RunningMockNetwork
beforeAll(() => {
  mock = startMockNetwork({ onUnhandledFrame: "error" })
})
afterAll(() => mock.close())

const password = "correct horse battery staple"

/** A config home with a wallet and an API key, and a folder of three files (one in a sub-folder) uploaded. */
const uploadedFolder = async () => {
  const home = await freshConfigHome()
  const env = { LIGHTHOUSE_NODE_POLICY: "concurrent", XDG_CONFIG_HOME: home, LIGHTHOUSE_WALLET_PASSWORD: password }
  for (const args of [
    ["wallet", "create", "--json"],
    ["api-key", "--json"]
  ]) {
    const ran = await run(args, env)
    expect(ran.code, ran.stderr).toBe(0)
  }
  const dir = join(home, "photos")
  await mkdir(join(dir, "sub"), { recursive: true })
  await writeFile(join(dir, "a.txt"), "alpha\n")
  await writeFile(
    join(dir, "b.bin"),
    new Uint8Array(300_000).map((_, i) => (i * 7) & 0xff)
  )
  await writeFile(join(dir, "sub", "c.txt"), "charlie\n")
  const uploaded = await run(["upload", dir, "--json"], env)
  expect(uploaded.code, uploaded.stderr).toBe(0)
  const { uploads } = json(uploaded) as { uploads: ReadonlyArray<{ cid: string }> }
  return { env, home, dir, cid: uploads[0]!.cid }
}

describe("folders", () => {
  it("upload answers one JSON shape per input, plain or --encrypted: a folder's uploads and skipped, a file's own", async () => {
    const { env, dir } = await uploadedFolder()
    const [folder, encryptedFolder, file, encryptedFile] = await Promise.all([
      run(["upload", dir, "--json"], env),
      run(["upload", dir, "--encrypted", "--json"], env),
      run(["upload", join(dir, "a.txt"), "--json"], env),
      run(["upload", join(dir, "a.txt"), "--encrypted", "--json"], env)
    ])
    for (const ran of [folder, encryptedFolder, file, encryptedFile]) expect(ran.code, ran.stderr).toBe(0)
    const entry = { cid: expect.any(String), name: expect.any(String), storedBytes: expect.any(Number) }
    expect(json(folder)).toEqual({ uploads: [{ ...entry, name: "photos" }], skipped: [] })
    expect(json(encryptedFolder)).toEqual({ uploads: [entry, entry, entry], skipped: [] })
    expect(
      (json(encryptedFolder) as { uploads: ReadonlyArray<{ name: string }> }).uploads.map((u) => u.name).sort()
    ).toEqual(["a.txt", "b.bin", "sub-c.txt"])
    expect(json(file)).toEqual({ ...entry, name: "a.txt" })
    expect(json(encryptedFile)).toEqual({ ...entry, name: "a.txt" })
    // storedBytes counts what the node stores: the encrypted file's ciphertext is longer than its 6 bytes.
    expect((json(encryptedFile) as { storedBytes: number }).storedBytes).toBeGreaterThan(6)
  })

  it("upload DIR, ls CID, download CID -o OUT equals DIR, cat CID/sub/file prints it", async () => {
    const { env, home, dir, cid } = await uploadedFolder()
    const listed = await run(["ls", cid, "--json"], env)
    expect(listed.code, listed.stderr).toBe(0)
    expect((json(listed) as Array<{ path: string; type: string }>).map((e) => [e.path, e.type])).toEqual([
      ["a.txt", "file"],
      ["b.bin", "file"],
      ["sub", "folder"]
    ])
    const recursive = await run(["ls", "-r", cid], env)
    expect(recursive.code, recursive.stderr).toBe(0)
    expect(recursive.stdout).toMatch(/^file {2}8 {2}\S+ {2}sub\/c\.txt$/m)

    const out = join(home, "restored")
    const downloaded = await run(["download", cid, "-o", out, "--json"], env)
    expect(downloaded.code, downloaded.stderr).toBe(0)
    expect(json(downloaded)).toMatchObject({ cid, output: out, files: 3, bytes: 300_014, skipped: [] })
    // `diff -r` exits non-zero (and execFileSync throws) on any difference.
    expect(execFileSync("diff", ["-r", dir, out], { encoding: "utf8" })).toBe("")

    const cat = await run(["cat", `${cid}/sub/c.txt`], env)
    expect(cat.code, cat.stderr).toBe(0)
    expect(cat.stdout).toBe("charlie\n")
    const ipfsPath = await run(["cat", `/ipfs/${cid}/a.txt`], env)
    expect(ipfsPath.stdout).toBe("alpha\n")

    const verified = await run(["verify", cid, "--json"], env)
    expect(verified.code, verified.stderr).toBe(0)
    expect(json(verified)).toEqual({ cid, verified: true, bytes: 300_014, files: 3 })

    const sub = join(home, "sub-only")
    const subDownload = await run(["download", `${cid}/sub`, "-o", sub, "--json"], env)
    expect(subDownload.code, subDownload.stderr).toBe(0)
    expect(execFileSync("diff", ["-r", join(dir, "sub"), sub], { encoding: "utf8" })).toBe("")
    const subListed = await run(["ls", `/ipfs/${cid}/sub`, "--json"], env)
    expect((json(subListed) as Array<{ path: string }>).map((e) => e.path)).toEqual(["c.txt"])
    const fileInfo = await run(["info", `${cid}/sub/c.txt`, "--json"], env)
    expect(json(fileInfo)).toMatchObject({ path: "c.txt", type: "file", size: 8 })

    const folder = await run(["cat", cid, "--json"], env)
    expect(folder.code).toBe(1)
    expect(json(folder)).toEqual({
      error: {
        _tag: "FolderNotAFile",
        message: `${cid} is a folder, not a file: download it into a directory, or list it`
      }
    })
  })
})
