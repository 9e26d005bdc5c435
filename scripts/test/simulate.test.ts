/**
 * `npm start` (scripts/simulate.ts): the whole simulation run in process passes every step and
 * shows every capability; a fault armed on the mock network fails the step that meets it with the
 * library's typed error and skips the flows that need it; and the command line prints the report
 * as JSON (`--json --step account`) and refuses an unknown flow, in a child process.
 */
import { execFile } from "node:child_process"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { capabilities, formatText, type Report } from "../simulate/Report.ts"
import { runSimulation } from "../simulate.ts"

const root = nodePath.resolve(nodePath.dirname(fileURLToPath(import.meta.url)), "..", "..")
const tsx = createRequire(import.meta.url).resolve("tsx/cli")

/** Runs the script with `args`; resolves with its exit code and output. */
const simulate = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [tsx, "--conditions=@lighthouse-effect/source", "scripts/simulate.ts", ...args],
      { cwd: root, env: { ...process.env, NO_COLOR: "1", ...env }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr })
    )
  })

/** Every capability the issue asks the simulation to walk. */
const expected = [
  "auth.createApiKey",
  "files.usage",
  "payment.quote",
  "payment.fund.usdc",
  "payment.credit.usdc",
  "payment.price.native",
  "payment.fund.native",
  "payment.credit.native",
  "upload.file",
  "upload.folder",
  "upload.text",
  "upload.buffer",
  "upload.car",
  "download.bytes",
  "download.sources.split",
  "download.sources.fallback",
  "upload.folder.backup",
  "download.list",
  "download.toDirectory",
  "upload.sync",
  "upload.sync.changed",
  "download.toDirectory.snapshots",
  "auth.token",
  "upload.encryptedFiles",
  "download.decrypt",
  "access.update",
  "access.get",
  "access.share",
  "access.revoke",
  "access.transferOwnership",
  "keyShards.fetchKey.owner",
  "keyShards.fetchKey.shared",
  "keyShards.fetchKey.condition",
  "keyShards.refused.stranger",
  "keyShards.refused.revoked",
  "download.decrypt.condition",
  "access.delegateAllFiles",
  "keyShards.fetchKey.delegate",
  "download.decrypt.delegate",
  "access.revokeDelegates",
  "keyShards.refused.revokedDelegate",
  "upload.encryptedText.radix",
  "access.update.radix",
  "keyShards.refused.radix",
  "mock.radixLedger",
  "download.decrypt.radix",
  "access.refused.emptyConditions",
  "upload.text.walrus",
  "files.walrusBlobs",
  "download.walrus",
  "files.uploads.walrus",
  "files.deleteFileWalrus",
  "files.fileInfo",
  "mock.simulateDeal",
  "files.dealStatus",
  "files.proof",
  "files.pin",
  "files.pin.listed",
  "files.pin.unreachable",
  "payment.x402Upload",
  "payment.x402.settled",
  "payment.x402.refused.underpaid",
  "files.requestPdpDeal",
  "files.awaitPdpDeal",
  "ipns.generateKey",
  "ipns.publishRecord",
  "ipns.records",
  "ipns.removeKey",
  "files.uploads",
  "files.deleteFile",
  "nodes.concurrent",
  "nodes.sequential"
]

const stepOf = (report: Report, capability: string) =>
  report.flows.flatMap((flow) => flow.steps).find((step) => step.capability === capability)

describe("the simulation", () => {
  it("runs every flow in process: every step passes, every capability is shown, well under 60 s", async () => {
    const report = await runSimulation()
    const failures = report.flows.flatMap((flow) =>
      flow.steps.filter((step) => !step.ok).map((step) => `${flow.name} / ${step.name}: ${step.detail}`)
    )
    expect(failures).toEqual([])
    expect(report.ok).toBe(true)
    expect(report.flows.map((flow) => [flow.name, flow.status])).toEqual(
      [
        "setup",
        "account",
        "payment",
        "upload",
        "sources",
        "folder",
        "encryption",
        "access",
        "delegation",
        "radix",
        "walrus",
        "files",
        "pin",
        "x402",
        "ipns",
        "listing",
        "policy",
        "pdp"
      ].map((name) => [name, "passed"])
    )
    expect(capabilities(report)).toEqual(expect.arrayContaining(expected))
    expect(report.totals).toMatchObject({ failed: 0, skipped: 0 })
    expect(report.totals.passed).toBe(report.totals.steps)
    expect(report.ms).toBeLessThan(60_000)

    // Every read-back is named, and no detail prints a template's placeholder.
    expect(stepOf(report, "download.bytes")?.detail).toBe(
      "all 4 identical to what was sent: hello.txt, site/img/logo.bin, samples.bin, bundle.car/data.bin"
    )
    for (const step of report.flows.flatMap((flow) => flow.steps)) expect(step.detail).not.toMatch(/\$[A-Za-z_]/)

    // The second sync sends the changed file alone (both snapshots restoring is its own step).
    expect(stepOf(report, "upload.sync.changed")?.detail).toMatch(/\(partial\): sent docs\/plan\.md, \d+ B of /)

    // The stranger meets the library's typed refusal; the sequential policy pays its pauses.
    expect(stepOf(report, "keyShards.refused.stranger")?.detail).toContain("AccessDenied")
    expect(stepOf(report, "payment.x402.refused.underpaid")?.detail).toBe(
      "refused as expected: X402Underpaid (x402 payment of 3906 is below the 3907 required)"
    )
    expect(stepOf(report, "nodes.sequential")!.ms).toBeGreaterThanOrEqual(2000)
    expect(report.header?.nodePolicy.mode).toBe("concurrent")

    const text = formatText(report)
    for (const step of report.flows.flatMap((flow) => flow.steps)) expect(text).toContain(`✓ ${step.name}`)
    expect(text).toContain("key nodes   concurrent")
    expect(text).toMatch(/PASSED: (\d+)\/\1 steps passed, 0 failed/)
  }, 60_000)

  it("reports a failing step with the typed error's _tag and message, and skips the flows needing it", async () => {
    const report = await runSimulation({
      flows: ["files"],
      // The upload node refuses every add: the upload flow fails at its first upload.
      arrange: (network) =>
        void network.faults.status({ host: "node", path: "/api/v0/add" }, 503, {
          body: { error: "the node is being upgraded" }
        })
    })
    expect(report.ok).toBe(false)
    expect(report.flows.map((flow) => [flow.name, flow.status])).toEqual([
      ["setup", "passed"],
      ["account", "passed"],
      ["upload", "failed"],
      ["files", "skipped"]
    ])
    const failed = report.flows[2]!.steps.at(-1)!
    expect(failed).toMatchObject({
      capability: "upload.file",
      ok: false,
      error: { tag: "UploadRejected", message: "the node is being upgraded" }
    })
    expect(failed.detail).toBe("UploadRejected: the node is being upgraded")
    expect(report.flows[3]!.reason).toBe("needs upload, which failed")
    expect(formatText(report)).toMatch(/✗ upload a file \(path\) +\d+ ms {2}UploadRejected: the node is being upgraded/)
  }, 60_000)

  it("--json --step account: the report as JSON on stdout, exit 0", async () => {
    const { code, stdout } = await simulate(["--json", "--step", "account"])
    expect(code).toBe(0)
    const report = JSON.parse(stdout) as Report
    expect(report).toMatchObject({
      ok: true,
      selected: ["account"],
      header: {
        chainId: 31337,
        nodePolicy: { mode: "concurrent" },
        contracts: {
          LighthousePayment: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
          USDC: expect.stringMatching(/^0x/),
          DAI: expect.stringMatching(/^0x/)
        },
        wallets: {
          owner: expect.stringMatching(/^0x/),
          friend: expect.stringMatching(/^0x/),
          holder: expect.stringMatching(/^0x/),
          stranger: expect.stringMatching(/^0x/)
        }
      },
      totals: { failed: 0, skipped: 0 }
    })
    expect(report.flows.map((flow) => flow.name)).toEqual(["setup", "account"])
    for (const step of report.flows.flatMap((flow) => flow.steps)) {
      expect(step).toEqual({
        capability: expect.any(String),
        name: expect.any(String),
        ok: true,
        ms: expect.any(Number),
        detail: expect.any(String)
      })
    }
    expect(report.flows[1]!.steps.map((step) => step.capability)).toEqual(["auth.createApiKey", "files.usage"])
    expect(typeof report.ms).toBe("number")
  }, 60_000)

  it("a full run with --json prints none of the secrets it used, nor any 10 characters of one", async () => {
    const dir = await mkdtemp(nodePath.join(tmpdir(), "lh-secrets-"))
    const secretsFile = nodePath.join(dir, "secrets.json")
    try {
      const { code, stdout, stderr } = await simulate(["--json"], { LIGHTHOUSE_SIMULATE_SECRETS_FILE: secretsFile })
      expect(code).toBe(0)
      const secrets = JSON.parse(await readFile(secretsFile, "utf8")) as ReadonlyArray<string>
      const hex64 = (s: string) => /^(0x)?[0-9a-f]{64}$/.test(s)
      // The run's secrets of every kind were learnt: the chain's private keys, API keys (UUIDs),
      // JWTs, recovered file keys.
      expect(secrets.filter((s) => s.startsWith("0x") && hex64(s)).length).toBeGreaterThanOrEqual(5)
      const shapes = secrets.map((s) => `${s.slice(0, 3)}…${s.length}`)
      expect(
        secrets.some((s) => /^[0-9a-f]{8}-[0-9a-f]{4}-/.test(s)),
        `an API key among ${shapes}`
      ).toBe(true)
      expect(
        secrets.some((s) => /^(jwt:)?eyJ[^.]*\.[^.]+\.[^.]+$/.test(s)),
        `a JWT among ${shapes}`
      ).toBe(true)
      expect(secrets.some((s) => !s.startsWith("0x") && hex64(s))).toBe(true)
      const output = `${stdout}\n${stderr}`
      const leaks = secrets.flatMap((secret) => {
        const pieces = new Set<string>()
        // A JWT's first segment is its public header ({"alg":…}): only the rest is secret.
        const body = secret.includes("eyJ") ? secret.slice(secret.indexOf(".") + 1) : secret.replace(/^(0x|r:)/, "")
        for (let i = 0; i + 10 <= body.length; i++) pieces.add(body.slice(i, i + 10))
        return [...pieces].some((piece) => output.includes(piece))
          ? [`${secret.slice(0, 4)}… (${secret.length} chars)`]
          : []
      })
      expect(leaks).toEqual([])
      expect(JSON.parse(stdout)).toMatchObject({ ok: true })
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 120_000)

  it("an unknown flow: the list of flows, exit 2, nothing started", async () => {
    const { code, stdout, stderr } = await simulate(["--step", "nope"])
    expect(code).toBe(2)
    expect(stdout).toBe("")
    expect(stderr).toContain('unknown flow "nope"; flows: account, payment, upload')
  }, 60_000)
})
