/**
 * The served network on disk (the server `npm run serve` runs, in this process) with a hook on
 * the requests the CLI makes, so a test can act at a chosen point of an encrypted upload: when
 * the key nodes are asked for a JWT, when the upload's body starts or has been read, when the
 * file is stored but not yet acknowledged, when k of the 5 shard saves are done. The CLI runs as
 * its own process (the bundled executable of `../executable.ts`), killed or interrupted there.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtemp, readdir, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { Download, Files, Signer } from "lighthouse-effect"
import { createMockNetwork } from "lighthouse-effect/mocks"
import { withStateDir } from "lighthouse-effect/mocks/node"
import { type ServedMockNetwork, serveMockNetwork } from "lighthouse-effect/mocks/server"
import * as LighthouseNode from "lighthouse-effect/node"
import { getResponse, http } from "msw"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { buildExecutable, type Executable } from "../support/executable.ts"

const root = nodePath.resolve(nodePath.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")

/** A fresh wallet per run; the account is seeded with its address. */
export const privateKey = generatePrivateKey()
export const address = privateKeyToAccount(privateKey).address.toLowerCase()

/** Where the CLI is to be stopped; `undefined` lets it run to the end. */
export type StopPoint =
  | { readonly at: "sign-in" }
  | { readonly at: "body-start" }
  | { readonly at: "body-read" }
  | { readonly at: "stored" }
  /**
   * Once `done` of the 5 shard saves are done. The others wait: until the CLI gives them up
   * (`release` false: they never reach the nodes), or until the test has acted (`release`).
   */
  | { readonly at: "saves"; readonly done: number; readonly release?: boolean }

/** What the hook does at the stop point: resolves when the test has acted (the held request then answers 500 or as it would). */
type Armed = { readonly point: StopPoint; readonly act: () => Promise<void> } | undefined

export interface Harness {
  readonly served: ServedMockNetwork
  readonly stateHome: string
  readonly env: Readonly<Record<string, string>>
  /** Runs the CLI; at `point` (if given) calls `act(child)` and holds the request until it resolves. */
  readonly cli: (
    args: ReadonlyArray<string>,
    point?: StopPoint,
    act?: (child: ChildProcess) => Promise<void>
  ) => Promise<{
    readonly code: number | null
    readonly signal: string | null
    readonly stdout: string
    readonly stderr: string
  }>
  /** The journal's files (entries only, not temporaries). */
  readonly journalEntries: () => Promise<ReadonlyArray<string>>
  /** Every upload the account lists: its CID and name. */
  readonly listed: () => Promise<ReadonlyArray<{ readonly cid: string; readonly fileName: string }>>
  /** The decrypted bytes of a CID (the key from the key nodes). */
  readonly decrypt: (cid: string) => Promise<Uint8Array>
  readonly close: () => Promise<void>
}

const failed = () => Response.json({ error: "held for a test" }, { status: 500 })

export const startHarness = async (): Promise<Harness> => {
  const executable: Executable = await buildExecutable()
  const dir = await mkdtemp(nodePath.join(tmpdir(), "lh-journal-"))
  const network = createMockNetwork(withStateDir({ stateDir: nodePath.join(dir, "network") }))
  const { apiKey } = network.seedAccount(address, {})
  let armed: Armed
  let savesStarted = 0
  let savesDone = 0
  /**
   * The run's saves point, kept for the whole run: a save after the first `done` is held whenever
   * it arrives, before the point is reached or after (the first `done` can all be answered before
   * the next one comes), and so is its retry.
   */
  let saves: Extract<StopPoint, { at: "saves" }> | undefined
  /** Settles once the test has acted at the armed point, however early a held save waits for it. */
  let acted: Promise<void> = Promise.resolve()
  let settleActed = () => {}
  /** Acts once at the armed point; `undefined` when this request is not it. */
  const reach = (point: StopPoint["at"]) => {
    const current = armed
    if (current === undefined || current.point.at !== point) return undefined
    armed = undefined
    const acting = current.act()
    acting.then(settleActed, settleActed)
    return acting
  }
  const spies = [
    http.post("*/api/message/get-jwt", async () => {
      const acted = reach("sign-in")
      if (acted === undefined) return undefined
      await acted
      return failed()
    }),
    http.post("*/api/v0/add", async ({ request }) => {
      if (armed?.point.at === "body-start") {
        await reach("body-start")
        return failed()
      }
      if (armed?.point.at === "body-read") {
        const reader = request.body!.getReader()
        await reader.read()
        await reach("body-read")
        return failed()
      }
      if (armed?.point.at !== "stored") return undefined
      const response = await getResponse([...network.handlers], request)
      await reach("stored")
      return response
    }),
    http.post("*/api/setSharedKey/:node", async ({ request }) => {
      const point = saves
      if (point === undefined) return undefined
      // The first `done` saves to arrive go through; the others wait (see `StopPoint`).
      if (savesStarted++ >= point.done) {
        if (point.release === true) await acted
        else if (!request.signal.aborted) {
          await new Promise<void>((resolve) => request.signal.addEventListener("abort", () => resolve()))
        }
        if (request.signal.aborted) return failed()
        return getResponse([...network.handlers], request)
      }
      const response = await getResponse([...network.handlers], request)
      savesDone += 1
      if (savesDone === point.done) await reach("saves")
      return response
    })
  ]
  const served = await serveMockNetwork({ network: { ...network, handlers: [...spies, ...network.handlers] } })
  const stateHome = nodePath.join(dir, "state")
  const env = {
    PATH: process.env.PATH ?? "",
    XDG_CONFIG_HOME: nodePath.join(dir, "config"),
    XDG_STATE_HOME: stateHome,
    LIGHTHOUSE_API_URL: served.urls.api,
    LIGHTHOUSE_NODE_URL: served.urls.node,
    LIGHTHOUSE_GATEWAY_URL: served.urls.gateway,
    LIGHTHOUSE_ENCRYPTION_URL: served.urls.encryption,
    LIGHTHOUSE_NODE_POLICY: "concurrent",
    LIGHTHOUSE_PRIVATE_KEY: privateKey,
    LIGHTHOUSE_API_KEY: apiKey
  }
  const library = LighthouseNode.layer({ hosts: served.urls, nodes: { mode: "concurrent" }, journal: "memory" })
  const signer = Signer.makeFromAccount(privateKeyToAccount(privateKey))

  const cli: Harness["cli"] = (args, point, act) =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [executable.bin, ...args], {
        cwd: root,
        env,
        stdio: ["ignore", "pipe", "pipe"]
      })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString()
      })
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString()
      })
      savesStarted = 0
      savesDone = 0
      acted = new Promise((resolve) => {
        settleActed = resolve
      })
      armed = point === undefined || act === undefined ? undefined : { point, act: () => act(child) }
      saves = armed?.point.at === "saves" ? armed.point : undefined
      child.once("close", (code, signal) => {
        armed = undefined
        saves = undefined
        resolve({ code, signal, stdout, stderr })
      })
    })

  return {
    served,
    stateHome,
    env,
    cli,
    journalEntries: async () => {
      const journal = nodePath.join(stateHome, "lighthouse-effect", "pending-keys")
      const names = await readdir(journal).catch(() => [] as Array<string>)
      return names.filter((name) => name.endsWith(".json") && !name.startsWith("."))
    },
    listed: () =>
      Effect.runPromise(
        Files.Files.use((files) => Stream.runCollect(files.uploads(apiKey))).pipe(Effect.provide(library))
      ),
    decrypt: (cid) =>
      Effect.runPromise(
        Download.Download.use((download) => download.retrieve(cid, { decrypt: { signer } })).pipe(
          Effect.map((retrieved) => retrieved.bytes),
          Effect.provide(library)
        )
      ),
    close: async () => {
      await served.close()
      network.close()
      await executable.remove()
      await rm(dir, { recursive: true, force: true })
    }
  }
}

/** Kills `child` with `signal` and waits until it is gone. */
export const stop = (child: ChildProcess, signal: NodeJS.Signals) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill(signal)
  })
