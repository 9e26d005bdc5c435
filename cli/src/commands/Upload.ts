/**
 * `upload <path|->` (plain, or `--encrypted` under the wallet's key shards) and its provider's name
 * `upload-encrypted`: a call of the library's `Upload` service; the command line only picks the
 * input and prints the result. `sync <dir>` keeps a folder stored (`Upload.sync`), its index in the
 * user's state directory; `sync --history <dir>` lists its snapshots.
 *
 * @since 0.1.0
 */

import { homedir } from "node:os"
import * as Config from "effect/Config"
import { Argument, Command, Flag } from "effect/cli"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Stdio from "effect/Stdio"
import { LighthouseConfig, PendingKeys, Upload } from "lighthouse-effect"
import { layerStorageConfig } from "lighthouse-effect/node"
import * as Credentials from "../Credentials.ts"
import { UsageError } from "../Errors.ts"
import * as Output from "../Output.ts"
import * as Progress from "../Progress.ts"
import * as Journal from "./PendingKeys.ts"

const uploadFlags = {
  path: Argument.String("path").pipe(Argument.withDescription("A file or a folder; - reads stdin")),
  encrypted: Flag.Boolean("encrypted").pipe(
    Flag.withDescription("Encrypt on this machine; the key's shards go to the 5 key nodes under your wallet"),
    Flag.withDefault(false)
  ),
  name: Flag.String("name").pipe(Flag.withDescription("The file's name when reading stdin"), Flag.withDefault("stdin")),
  storageType: Flag.Literals("storage-type", ["ipfs", "walrus"]).pipe(
    Flag.withAlias("s"),
    Flag.withDescription("Where a plain upload is stored"),
    Flag.withDefault("ipfs" as const)
  ),
  cidVersion: Flag.ChoiceWithValue("cid-version", [
    ["0", 0],
    ["1", 1]
  ] as const).pipe(Flag.withDescription("The CID's version"), Flag.withDefault(1 as const)),
  profile: Flag.Literals("profile", ["unixfs-v0-2015", "unixfs-v1-2025"]).pipe(
    Flag.withDescription(
      "The UnixFS layout (IPIP-499): unixfs-v0-2015, kubo's defaults (256 KiB chunks, 174 links), or unixfs-v1-2025 (1 MiB chunks, 1024 links, raw leaves)"
    ),
    Flag.withDefault("unixfs-v0-2015" as const)
  ),
  skipUnreadable: Flag.Boolean("skip-unreadable").pipe(
    Flag.withDescription(
      "In a folder, leave out entries that cannot be read (symlink loops, broken links, no permission) and list them"
    ),
    Flag.withDefault(false)
  ),
  nodePolicy: Flag.Literals("node-policy", ["sequential", "concurrent"]).pipe(
    Flag.withDescription(
      "How an encrypted upload reaches the 5 key nodes: sequential, node after node 1 s apart (the provider's pace, the default), or concurrent, all at once; overrides LIGHTHOUSE_NODE_POLICY"
    ),
    Flag.optional
  ),
  yes: Flag.Boolean("yes").pipe(
    Flag.withAlias("y"),
    Flag.withDescription("Accepted for scripts written for other CLIs; nothing here asks to confirm an upload"),
    Flag.withDefault(false)
  )
}

/**
 * The upload's input: stdin, a folder, or a file. A folder is walked here when its unreadable
 * entries are to be skipped, so that what was skipped is known for encrypted uploads too (their
 * result has one entry per file and no room for it), and when it is to be encrypted, so that its
 * files are counted before the key nodes' time is estimated (`stateEstimate`).
 */
const inputOf = (path: string, name: string, walk: { readonly skipUnreadable: boolean; readonly encrypted: boolean }) =>
  Effect.gen(function* () {
    if (path === "-") {
      const stdio = yield* Stdio.Stdio
      return { _tag: "File", input: Upload.Input.stream(stdio.stdin, { name }), skipped: undefined } as const
    }
    const info = yield* (yield* FileSystem.FileSystem).stat(path)
    if (info.type !== "Directory") return { _tag: "File", input: Upload.Input.path(path), skipped: undefined } as const
    if (!walk.skipUnreadable && !walk.encrypted)
      return { _tag: "Folder", input: Upload.Input.directory(path), skipped: undefined } as const
    const read = yield* Upload.Input.readDirectory(path, { skipUnreadable: walk.skipUnreadable })
    return { _tag: "Folder", input: read.files, skipped: walk.skipUnreadable ? read.skipped : undefined } as const
  })

type UploadInput = Effect.Success<ReturnType<typeof inputOf>>

const plainUpload = (
  input: UploadInput,
  options: Omit<Upload.FileOptions, "onProgress" | "apiKey"> & { readonly apiKey: Upload.Options["apiKey"] }
) =>
  Effect.gen(function* () {
    const upload = yield* Upload.Upload
    return yield* Progress.around((onProgress) => {
      const withProgress = { ...options, onProgress }
      return input._tag === "Folder" ? upload.folder(input.input, withProgress) : upload.file(input.input, withProgress)
    }).pipe(Effect.map((entry) => [entry]))
  })

const encryptedUpload = (
  input: UploadInput,
  options: {
    readonly apiKey: Upload.Options["apiKey"]
    readonly cidVersion: 0 | 1
    readonly profile: Upload.Options["profile"]
  }
) =>
  Effect.gen(function* () {
    // With the signer the journal's entries are sealed for the wallet (PendingKeys.ts says what is journaled).
    const signer = yield* Credentials.signer
    const upload = yield* Upload.Upload
    const noted = yield* Journal.noting
    return yield* Progress.around((onProgress) => {
      const encryption = {
        apiKey: options.apiKey,
        signer,
        cidVersion: options.cidVersion,
        profile: options.profile,
        onProgress
      }
      return input._tag === "Folder"
        ? upload.encryptedFiles(input.input, encryption)
        : Effect.map(upload.encryptedFile(input.input, encryption), (entry) => [entry])
    }).pipe(
      Effect.provideService(PendingKeys.PendingKeys, noted.service),
      Effect.provideService(Upload.SaveGrace, Journal.saveGrace),
      Effect.catchTag(["EncryptedUploadIncomplete", "PendingKeysUnfinished"], (error) =>
        Effect.fail(Journal.unfinishedOf(error))
      ),
      Effect.onInterrupt(() => Journal.reportInterrupted(noted))
    )
  })

type UploadFlags = Command.Command.Config.Infer<typeof uploadFlags>

/** How many files an encrypted upload saves the shards of at once (`saveAll` in core's `upload/Encrypted.ts`). */
const shardSavesAtOnce = 4

/**
 * The key nodes' pacing for an encrypted upload of `files` files: under `sequential` each file's
 * shards go node after node, `pause` apart (4 pauses over 5 nodes), `shardSavesAtOnce` files at a
 * time; under `concurrent` there is no pause. What the nodes' own answers take comes on top.
 */
export const keyNodesMillis = (files: number, policy: LighthouseConfig.NodePolicy): number =>
  policy.mode === "concurrent" ? 0 : Math.ceil(files / shardSavesAtOnce) * 4 * Duration.toMillis(policy.pause)

/**
 * Before an encrypted folder is sent: the key nodes' estimated time, as an `estimate` event with
 * `--progress ndjson`, else as a note on stderr (none with `--json` or `--quiet`).
 */
const stateEstimate = (files: number) =>
  Effect.gen(function* () {
    const policy = (yield* LighthouseConfig.LighthouseConfig).nodes
    const seconds = Math.round(keyNodesMillis(files, policy) / 1000)
    if ((yield* Progress.Mode) === "ndjson") {
      return yield* Output.stderr(
        Output.toJson({ event: "estimate", files, nodePolicy: policy.mode, keyNodesSeconds: seconds })
      )
    }
    yield* Output.note(
      policy.mode === "concurrent"
        ? `Saving the key shards of ${files} files on the 5 key nodes at once (--node-policy concurrent)`
        : `Saving the key shards of ${files} files on the 5 key nodes takes about ${seconds} s ` +
            `(sequential: ${Duration.format(policy.pause)} between nodes; --node-policy concurrent calls them at once)`
    )
  })

/**
 * `--node-policy` over `LIGHTHOUSE_NODE_POLICY`: the library's services again (without Payment,
 * as the root's: an upload loads no viem), with that key-node mode.
 */
const withNodePolicy =
  (nodePolicy: Option.Option<LighthouseConfig.NodePolicy["mode"]>) =>
  <A, E, R>(self: Effect.Effect<A, E, R>) =>
    Option.isNone(nodePolicy)
      ? self
      : self.pipe(Effect.provide(layerStorageConfig({ nodes: Config.succeed({ mode: nodePolicy.value }) })))

const runUpload = (flags: UploadFlags) =>
  Effect.gen(function* () {
    const apiKey = yield* Credentials.apiKey
    const input = yield* inputOf(flags.path, flags.name, flags)
    const { cidVersion, profile } = flags
    if (flags.encrypted && input.input._tag === "Files") yield* stateEstimate(input.input.files.length)
    const entries = flags.encrypted
      ? yield* encryptedUpload(input, { apiKey, cidVersion, profile })
      : yield* plainUpload(input, { apiKey, cidVersion, profile, storageType: flags.storageType })
    const uploads = entries.map((entry) => ({ cid: entry.Hash, name: entry.Name, storedBytes: Number(entry.Size) }))
    for (const { path, reason } of input.skipped ?? []) {
      yield* Output.note(`Skipped unreadable entry: ${path} (${reason})`)
    }
    yield* Output.result(
      resultOf(input._tag, uploads, input.skipped ?? []),
      uploads.map((u) => `${u.cid}  ${u.name}  ${u.storedBytes} bytes stored`)
    )
  }).pipe(withNodePolicy(flags.nodePolicy))

/**
 * One JSON shape per input, whatever the flags. A file (or stdin): `{cid, name, storedBytes}`. A
 * folder: `{uploads: [{cid, name, storedBytes}], skipped: [{path, reason}]}`, `uploads` holding the
 * folder's root when plain and each file when `--encrypted` (each stored on its own), `skipped`
 * what `--skip-unreadable` left out (else empty). `storedBytes` counts what the node stores (the
 * UnixFS DAG; when encrypted, of the ciphertext), not the file's own bytes.
 */
const resultOf = (
  input: UploadInput["_tag"],
  uploads: ReadonlyArray<{ readonly cid: string; readonly name: string; readonly storedBytes: number }>,
  skipped: ReadonlyArray<unknown>
) => (input === "File" && uploads.length === 1 ? uploads[0] : { uploads, skipped })

export const upload = Command.make("upload", uploadFlags, runUpload).pipe(
  Command.withDescription("Uploads a file, a folder or stdin; prints the CID"),
  Command.withExamples([
    {
      command: "lighthouse-effect upload photo.jpg --json",
      description: "Upload a file; {cid,name,storedBytes} on stdout"
    },
    { command: "tar c dir | lighthouse-effect upload - --name dir.tar", description: "Upload stdin" },
    {
      command: "lighthouse-effect upload site/ --skip-unreadable",
      description: "Upload a folder without its broken links and symlink loops; each one skipped is named on stderr"
    },
    { command: "lighthouse-effect upload secret.pdf --encrypted", description: "Encrypt, upload, save the key shards" },
    {
      command: "lighthouse-effect upload photos/ --encrypted --node-policy concurrent",
      description: "Encrypt each file; call the 5 key nodes at once instead of 1 s apart"
    }
  ])
)

/** `upload-encrypted <path>`: the provider's name for `upload --encrypted`. */
const { encrypted: _always, ...encryptedFlags } = uploadFlags
export const uploadEncrypted = Command.make("upload-encrypted", encryptedFlags, (flags) =>
  runUpload({ ...flags, encrypted: true })
).pipe(Command.withDescription("Same as upload --encrypted (the provider's command name)"))

// =============================================================================
// sync
// =============================================================================

/** The user's state directory (`$XDG_STATE_HOME/lighthouse-effect`, else `~/.local/state/lighthouse-effect`). */
const stateDirectory = Effect.gen(function* () {
  const path = yield* Path.Path
  const journal = yield* PendingKeys.stateDirectory(homedir())
  if (Option.isNone(journal)) {
    return yield* new UsageError({ detail: "sync keeps its index in the state directory: set XDG_STATE_HOME or HOME" })
  }
  return path.dirname(journal.value)
})

const syncFlags = {
  directory: Argument.String("dir").pipe(Argument.withDescription("The folder to keep stored")),
  dryRun: Flag.Boolean("dry-run").pipe(
    Flag.withDescription("Say what would be sent and the snapshot's CID; send and write nothing"),
    Flag.withDefault(false)
  ),
  history: Flag.Boolean("history").pipe(
    Flag.withDescription("List the folder's snapshots, oldest first, instead of syncing"),
    Flag.withDefault(false)
  ),
  cidVersion: uploadFlags.cidVersion
}

const mib = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(2)} MiB`

const runHistory = (directory: string, state: string) =>
  Effect.gen(function* () {
    const snapshots = yield* (yield* Upload.Upload).syncHistory(directory, { stateDirectory: state })
    yield* Output.result(
      snapshots,
      snapshots.map(
        (s) =>
          `${new Date(s.at).toISOString()}  ${s.cid}  ${s.files} files  ${s.bytes} bytes  sent ${s.bytesSent}  ${s.mode}`
      )
    )
  })

const runSync = (flags: Command.Command.Config.Infer<typeof syncFlags>) =>
  Effect.gen(function* () {
    const state = yield* stateDirectory
    if (flags.history) return yield* runHistory(flags.directory, state)
    const apiKey = yield* Credentials.apiKey
    const upload = yield* Upload.Upload
    const result = yield* upload.sync(flags.directory, {
      apiKey,
      stateDirectory: state,
      cidVersion: flags.cidVersion,
      dryRun: flags.dryRun
    })
    const how =
      result.mode === "dry-run"
        ? `would send ${result.bytesSent} bytes`
        : `sent ${result.bytesSent} bytes${result.mode === "full" ? " (the node refused a partial CAR: the whole folder was uploaded)" : ""}`
    yield* Output.result(result, [
      `${result.cid}  ${how}`,
      `${result.files} files (${mib(result.bytes)}), ${result.sent.length} new or changed, ${result.removed.length} removed${result.unchanged ? ", unchanged" : ""}`,
      ...result.sent.map((path) => `+ ${path}`),
      ...result.removed.map((path) => `- ${path}`)
    ])
  })

export const sync = Command.make("sync", syncFlags, runSync).pipe(
  Command.withDescription(
    "Keeps a folder stored: sends only new and changed files (one CAR through dag/import) and prints the snapshot's CID"
  ),
  Command.withExamples([
    {
      command: "lighthouse-effect sync photos/",
      description: "Store a snapshot of photos/, sending only what changed"
    },
    { command: "lighthouse-effect sync photos/ --dry-run --json", description: "What would be sent, as JSON" },
    { command: "lighthouse-effect sync --history photos/", description: "The snapshots of photos/, oldest first" }
  ])
)
