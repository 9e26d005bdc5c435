/**
 * The command line's manners beside gh, git and rclone: a usage error is one line and a hint;
 * `--wizard` only on a terminal; `api-key --print` shows the saved key; completions for both
 * names; stdout closed by its reader ends quietly with 0; and the table `--help` is drawn from
 * names exactly the commands it loads.
 */
import { execFileSync, spawn } from "node:child_process"
import { mkdir, symlink, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { startMockNetwork } from "lighthouse-effect/mocks/node"
import { testKeys } from "lighthouse-effect/mocks/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Main from "../src/Main.ts"
import { freshConfigHome, json, run } from "./support/commands.ts"
import { buildExecutable, type Executable } from "./support/executable.ts"

describe("usage", () => {
  it("a usage error is its own line and a hint to --help, on stderr, exit 2", async () => {
    const missing = await run(["upload"], {})
    expect(missing).toMatchObject({
      code: 2,
      stdout: "",
      stderr: "Missing required argument: path\nRun 'lighthouse-effect upload --help' for usage.\n"
    })
    const flag = await run(["upload", "a.txt", "--bogus"], {})
    expect(flag.stderr).toBe(
      "Unrecognized flag: --bogus in command lighthouse-effect upload\nRun 'lighthouse-effect upload --help' for usage.\n"
    )
    const typo = await run(["uplod", "--json"], {})
    expect(typo.stderr).toBe(
      `Unknown subcommand "uplod" for "lighthouse-effect" (did you mean upload?)\nRun 'lighthouse-effect --help' for usage.\n`
    )
    expect(json(typo)).toEqual({
      error: {
        _tag: "UnknownSubcommand",
        message: `Unknown subcommand "uplod" for "lighthouse-effect" (did you mean upload?)`
      }
    })
  })

  it("--wizard without a terminal is refused as bad usage, nothing asked", async () => {
    const ran = await run(["--wizard"], {})
    expect(ran).toMatchObject({
      code: 2,
      stdout: "",
      stderr: "--wizard asks its questions on a terminal, and there is none here\n"
    })
  })
})

describe("--quiet", () => {
  it("keeps the result on stdout and says nothing else on stderr", async () => {
    const mock = startMockNetwork({ onUnhandledFrame: "error" })
    try {
      const home = await freshConfigHome()
      const env = { XDG_CONFIG_HOME: home, LIGHTHOUSE_PRIVATE_KEY: testKeys.alice }
      expect((await run(["api-key"], env)).code).toBe(0)
      const site = join(home, "site")
      await mkdir(site)
      await writeFile(join(site, "index.html"), "<p>hello</p>")
      await symlink(join(site, "gone"), join(site, "broken"))
      const told = await run(["upload", site, "--skip-unreadable"], env)
      expect(told).toMatchObject({ code: 0, stderr: expect.stringMatching(/^Skipped unreadable entry: broken \(/) })
      for (const flag of ["--quiet", "-q"]) {
        const quiet = await run(["upload", site, "--skip-unreadable", flag], env)
        expect(quiet).toMatchObject({ code: 0, stderr: "", stdout: told.stdout })
      }
    } finally {
      mock.close()
    }
  })
})

describe("api-key --print", () => {
  it("prints the saved key without a wallet or a request", async () => {
    // No wallet and no hosts: getting a new key would fail (no wallet to sign with).
    const env = { XDG_CONFIG_HOME: await freshConfigHome() }
    expect((await run(["api-key", "--import-file", "-"], env, "the-saved-key\n")).code).toBe(0)
    expect(await run(["api-key", "--print"], env)).toMatchObject({ code: 0, stdout: "the-saved-key\n", stderr: "" })
    const printed = json(await run(["api-key", "--print", "--json"], env))
    expect(printed).toEqual({ apiKey: "the-saved-key", saved: `${env.XDG_CONFIG_HOME}/lighthouse-effect/config.json` })
  })
})

describe("completions", () => {
  it("complete both names, lighthouse-effect and lhe, in bash, zsh, fish and PowerShell", async () => {
    const [bash, zsh, fish, powershell] = await Promise.all(
      ["bash", "zsh", "fish", "powershell"].map((shell) => run(["--completions", shell], {}))
    )
    // bash completes `lhe up` and `lighthouse-effect up` the same.
    for (const name of ["lhe", "lighthouse-effect"]) {
      const completed = execFileSync(
        "bash",
        [
          "-c",
          `eval "$(cat)"; COMP_WORDS=(${name} up); COMP_CWORD=1; COMP_LINE="${name} up"; COMP_POINT=\${#COMP_LINE}; ` +
            `_lighthouse_effect; complete -p ${name}; echo "\${COMPREPLY[@]}"`
        ],
        { input: bash?.stdout, encoding: "utf8" }
      )
      const [registered, offered] = completed.trim().split("\n")
      expect(registered).toBe(`complete -F _lighthouse_effect ${name}`)
      expect(offered?.split(" ").sort()).toEqual(["upload", "upload-encrypted", "uploads"])
    }
    expect(zsh?.stdout.split("\n")[0]).toBe("#compdef lighthouse-effect lhe")
    expect(zsh?.stdout).toContain("  compdef _lighthouse_effect lighthouse-effect lhe\n")
    expect(fish?.stdout.trimEnd().split("\n").at(-1)).toBe("complete --command lhe --wraps lighthouse-effect")
    expect(powershell?.stdout).toContain("-CommandName 'lighthouse-effect', 'lhe'")
  })
})

describe("the command table", () => {
  it("names each command it loads, with its alias, and every command once", async () => {
    for (const entry of Main.commands) {
      const command = await entry.load()
      expect({ name: command.name, alias: command.alias }).toEqual({
        name: entry.name,
        alias: "alias" in entry ? entry.alias : undefined
      })
    }
    const names = Main.commands.map((entry) => entry.name)
    expect(new Set(names).size).toBe(names.length)
  })

  it("finds the command after global flags and their values", () => {
    expect(Main.commandWord(["--json", "--progress", "ndjson", "upload", "x"])).toBe("upload")
    expect(Main.commandWord(["--api-key-file", "upload", "info", "cid"])).toBe("info")
    expect(Main.commandWord(["--help"])).toBeUndefined()
    expect(Main.commandWord(["--", "upload"])).toBeUndefined()
  })
})

describe("the executable", () => {
  let executable: Executable
  beforeAll(async () => {
    executable = await buildExecutable()
  }, 120_000)
  afterAll(() => executable?.remove())

  it("ends quietly with 0 when its reader closes stdout (… | head)", async () => {
    const child = spawn(process.execPath, [executable.bin, "--help"], { stdio: ["ignore", "pipe", "pipe"] })
    // Closed before the command writes: its first write fails with EPIPE.
    child.stdout.destroy()
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const code = await new Promise((resolve) => child.once("close", resolve))
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" })
  }, 60_000)
})
