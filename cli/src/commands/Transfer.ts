/**
 * Moving content: `upload <path|->` (plain, or `--encrypted` under the wallet's key shards),
 * `download <cid> [-o FILE|-]` (verified; `--decrypt` with the wallet; `--resume` after an interruption), `cat <cid>` (to stdout)
 * and `verify <cid>` (the gateway's CAR, every block checked). Each is a call of the library's
 * `Upload` or `Download` service; the command line only picks the input and the output.
 *
 * A download writes only to the path chosen (`-o`, or `./<cid>`), never replaces a file without
 * `--force`, and the library's `toFile` makes the file appear only once the content checked.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import { Argument, Command, Flag } from "effect/cli"
import { Download, PendingKeys, Upload } from "lighthouse-effect"
import { withLibrary } from "../Client.ts"
import * as Credentials from "../Credentials.ts"
import { WouldOverwrite } from "../Errors.ts"
import * as Output from "../Output.ts"
import * as Progress from "../Progress.ts"
import * as Repair from "./Repair.ts"

const cid = Argument.String("cid").pipe(Argument.withDescription("The content's CID"))

// =============================================================================
// upload
// =============================================================================

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
  cidVersion: Flag.Literals("cid-version", ["0", "1"]).pipe(Flag.withDefault("1" as const)),
  skipUnreadable: Flag.Boolean("skip-unreadable").pipe(
    Flag.withDescription(
      "In a folder, leave out entries that cannot be read (symlink loops, broken links, no permission) and list them"
    ),
    Flag.withDefault(false)
  ),
  yes: Flag.Boolean("yes").pipe(
    Flag.withAlias("y"),
    Flag.withDescription("Accepted for scripts written for other CLIs; nothing here asks to confirm an upload"),
    Flag.withDefault(false)
  ),
  apiKeyFile: Credentials.apiKeyFile,
  passwordFile: Credentials.passwordFile
}

/**
 * The upload's input: stdin, a folder, or a file. A folder whose unreadable entries are to be
 * skipped is walked here, so that what was skipped is known for encrypted uploads too (their
 * result has one entry per file and no room for it).
 */
const inputOf = (path: string, name: string, skipUnreadable: boolean) =>
  Effect.gen(function* () {
    if (path === "-") {
      const stdio = yield* Stdio.Stdio
      return { _tag: "File", input: Upload.Input.stream(stdio.stdin, { name }), skipped: undefined } as const
    }
    const info = yield* (yield* FileSystem.FileSystem).stat(path)
    if (info.type !== "Directory") return { _tag: "File", input: Upload.Input.path(path), skipped: undefined } as const
    if (!skipUnreadable) return { _tag: "Folder", input: Upload.Input.directory(path), skipped: undefined } as const
    const read = yield* Upload.Input.readDirectory(path, { skipUnreadable })
    return { _tag: "Folder", input: read.files, skipped: read.skipped } as const
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
    readonly passwordFile: Option.Option<string>
    readonly cidVersion: 0 | 1
  }
) =>
  Effect.gen(function* () {
    // With the signer the journal's entries are sealed for the wallet (Repair.ts says what is journaled).
    const signer = yield* Credentials.signer(options.passwordFile)
    const upload = yield* Upload.Upload
    const noted = yield* Repair.noting
    return yield* Progress.around((onProgress) => {
      const encryption = { apiKey: options.apiKey, signer, cidVersion: options.cidVersion, onProgress }
      return input._tag === "Folder"
        ? upload.encryptedFiles(input.input, encryption)
        : Effect.map(upload.encryptedFile(input.input, encryption), (entry) => [entry])
    }).pipe(
      Effect.provideService(PendingKeys.PendingKeys, noted.service),
      Effect.provideService(Upload.SaveGrace, Repair.saveGrace),
      Effect.catchTag(["EncryptedUploadIncomplete", "PendingKeysUnfinished"], (error) =>
        Effect.fail(Repair.unfinishedOf(error))
      ),
      Effect.onInterrupt(() => Repair.reportInterrupted(noted))
    )
  })

type UploadFlags = Command.Command.Config.Infer<typeof uploadFlags>

const runUpload = (flags: UploadFlags) =>
  Effect.gen(function* () {
    const apiKey = yield* Credentials.apiKey(flags.apiKeyFile)
    const input = yield* inputOf(flags.path, flags.name, flags.skipUnreadable)
    const cidVersion = flags.cidVersion === "0" ? 0 : 1
    const entries = flags.encrypted
      ? yield* encryptedUpload(input, { apiKey, passwordFile: flags.passwordFile, cidVersion })
      : yield* plainUpload(input, { apiKey, cidVersion, storageType: flags.storageType })
    const results = entries.map((entry) => ({ cid: entry.Hash, name: entry.Name, size: Number(entry.Size) }))
    const result = results.length === 1 ? results[0] : results
    for (const { path, reason } of input.skipped ?? []) {
      yield* Output.note(`Skipped unreadable entry: ${path} (${reason})`)
    }
    // With --skip-unreadable the result lists what was skipped (a list of results becomes `files`).
    yield* Output.result(
      input.skipped === undefined
        ? result
        : Array.isArray(result)
          ? { files: result, skipped: input.skipped }
          : { ...result, skipped: input.skipped },
      results.map((r) => `${r.cid}  ${r.name}  ${r.size}`)
    )
  }).pipe(withLibrary)

export const upload = Command.make("upload", uploadFlags, runUpload).pipe(
  Command.withDescription("Uploads a file, a folder or stdin; prints the CID"),
  Command.withExamples([
    { command: "lighthouse-effect upload photo.jpg --json", description: "Upload a file; {cid,name,size} on stdout" },
    { command: "tar c dir | lighthouse-effect upload - --name dir.tar", description: "Upload stdin" },
    {
      command: "lighthouse-effect upload site/ --skip-unreadable",
      description: "Upload a folder without its broken links and symlink loops; each one skipped is named on stderr"
    },
    { command: "lighthouse-effect upload secret.pdf --encrypted", description: "Encrypt, upload, save the key shards" }
  ])
)

/** `upload-encrypted <path>`: the provider's name for `upload --encrypted`. */
const { encrypted: _always, ...encryptedFlags } = uploadFlags
export const uploadEncrypted = Command.make("upload-encrypted", encryptedFlags, (flags) =>
  runUpload({ ...flags, encrypted: true })
).pipe(Command.withDescription("Same as upload --encrypted (the provider's command name)"))

// =============================================================================
// download, cat, verify
// =============================================================================

const decryptFlags = {
  decrypt: Flag.Boolean("decrypt").pipe(
    Flag.withDescription("Decrypt with the key recovered from the key nodes for your wallet"),
    Flag.withDefault(false)
  ),
  passwordFile: Credentials.passwordFile
}

/**
 * `--unverified`: a gateway that cannot answer verifiably is read unverified (the library's
 * `verification: "if-supported"`), and the result says so. Without it every byte is verified
 * against the CID, or the command fails.
 */
const unverifiedFlag = Flag.Boolean("unverified").pipe(
  Flag.withDescription(
    "Accept the gateway's bytes unverified when it cannot serve them verifiably (the result then says verified: false)"
  ),
  Flag.withDefault(false)
)

const verificationOf = (unverified: boolean) => ({ verification: unverified ? "if-supported" : "required" }) as const

const decryption = (decrypt: boolean, passwordFile: Option.Option<string>) =>
  decrypt ? Effect.map(Credentials.signer(passwordFile), (signer) => ({ decrypt: { signer } })) : Effect.succeed({})

/**
 * The stored bytes, verified; with `unverified`, read unverified when the gateway cannot answer
 * verifiably (that refusal comes before any byte), `report` then saying so.
 */
const storedBytes = (download: Download.Download["Service"], cid: string, unverified: boolean) => {
  let report: Download.VerificationReport = { verified: true }
  const verified = download.stream(cid, { verification: "required" })
  const stream = unverified
    ? Stream.catchTag(verified, "UnverifiableGateway", (refused) =>
        Stream.suspend(() => {
          const reason = `the gateway answered ${refused.answer} to ?format=${refused.format}`
          report = { verified: false, reason }
          // Said on stderr as the library says it for a file: stdout holds only the content.
          return Stream.fromEffectDrain(Effect.logWarning(`Downloading ${cid} unverified: ${reason}`)).pipe(
            Stream.concat(download.stream(cid, { verification: "off" }))
          )
        })
      )
    : verified
  return { stream, report: () => report }
}

/** The content on stdout: streamed as verified when plain, whole once the tag checks when decrypted. */
const toStdout = (cid: string, decrypt: boolean, passwordFile: Option.Option<string>, unverified: boolean) =>
  Effect.gen(function* () {
    const download = yield* Download.Download
    if (decrypt) {
      const options = { ...(yield* decryption(true, passwordFile)), ...verificationOf(unverified) }
      const retrieved = yield* Progress.around(() => download.retrieve(cid, options), {
        bytesOf: (retrieved) => retrieved.bytes.length
      })
      yield* Output.stdoutBytes(retrieved.bytes)
      return { bytes: retrieved.bytes.length, verification: retrieved.verification }
    }
    const stdio = yield* Stdio.Stdio
    const { stream, report } = storedBytes(download, cid, unverified)
    let bytes = 0
    yield* Progress.around((onProgress) =>
      stream.pipe(
        Stream.tap((chunk) => {
          bytes += chunk.length
          return onProgress === undefined ? Effect.void : onProgress({ bytesSent: bytes, totalBytes: undefined })
        }),
        Stream.run(stdio.stdout({ endOnDone: false }))
      )
    )
    return { bytes, verification: report() }
  })

/**
 * Where a download goes: `-o`, else `./<cid>`; a folder given as `-o` gets `<cid>` inside it. An
 * existing file there is refused unless replaced (`force`) or resumed (`resume`: the library
 * checks its bytes against the CID and keeps only the verified ones).
 */
const targetOf = (cid: string, output: Option.Option<string>, force: boolean) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const chosen = Option.getOrElse(output, () => cid)
    const isFolder = (yield* fs.exists(chosen)) && (yield* fs.stat(chosen)).type === "Directory"
    const target = path.resolve(isFolder ? path.join(chosen, cid) : chosen)
    if (!force && (yield* fs.exists(target))) return yield* new WouldOverwrite({ path: target })
    return target
  })

export const download = Command.make(
  "download",
  {
    cid,
    output: Flag.String("output").pipe(
      Flag.withAlias("o"),
      Flag.withDescription("The file to write (- for stdout); default ./<cid>"),
      Flag.optional
    ),
    force: Flag.Boolean("force").pipe(Flag.withDescription("Replace an existing file"), Flag.withDefault(false)),
    resume: Flag.Boolean("resume").pipe(
      Flag.withDescription(
        "Go on from an interrupted download (<file>.partial, or for a plain file the file itself) after checking its bytes against the CID"
      ),
      Flag.withDefault(false)
    ),
    unverified: unverifiedFlag,
    ...decryptFlags
  },
  ({ cid, output, force, resume, unverified, decrypt, passwordFile }) =>
    Effect.gen(function* () {
      if (Option.getOrUndefined(output) === "-") {
        const summary = yield* toStdout(cid, decrypt, passwordFile, unverified)
        return yield* Output.result({ cid, output: "-", ...summary }, [], { contentOnStdout: true })
      }
      const target = yield* targetOf(cid, output, force || (resume && !decrypt))
      const download = yield* Download.Download
      const fs = yield* FileSystem.FileSystem
      const options = { ...(yield* decryption(decrypt, passwordFile)), ...verificationOf(unverified), resume }
      // The library's toFile reports no progress: only the final event, with the file's size.
      const written = yield* Progress.around(
        () =>
          Effect.gen(function* () {
            const verification = yield* download.toFile(cid, target, options)
            return { verification, bytes: Number((yield* fs.stat(target)).size) }
          }),
        { bytesOf: (written) => written.bytes }
      )
      yield* Output.result({ cid, output: target, ...written }, [target])
    }).pipe(withLibrary)
).pipe(
  Command.withAlias("decrypt-file"),
  Command.withDescription(
    "Downloads content checked against its CID (--unverified to accept a gateway that cannot serve it verifiably); --decrypt for encrypted files"
  ),
  Command.withExamples([
    { command: "lighthouse-effect download bafy… -o photo.jpg", description: "Into a file (refuses to replace one)" },
    { command: "lighthouse-effect download bafy… -o big.iso --resume", description: "Goes on after an interruption" },
    { command: "lighthouse-effect download bafy… -o - --decrypt > plain.pdf", description: "Decrypted, to stdout" }
  ])
)

export const cat = Command.make(
  "cat",
  { cid, unverified: unverifiedFlag, ...decryptFlags },
  ({ cid, unverified, decrypt, passwordFile }) =>
    Effect.gen(function* () {
      const summary = yield* toStdout(cid, decrypt, passwordFile, unverified)
      yield* Output.result({ cid, ...summary }, [], { contentOnStdout: true })
    }).pipe(withLibrary)
).pipe(Command.withDescription("Writes content to stdout, checked against its CID"))

export const verify = Command.make("verify", { cid }, ({ cid }) =>
  Effect.gen(function* () {
    const download = yield* Download.Download
    const bytes = yield* download.stream(cid, { verification: "required" }).pipe(
      Stream.runFold(
        () => 0,
        (total, chunk: Uint8Array) => total + chunk.length
      )
    )
    yield* Output.result({ cid, verified: true, bytes }, [`${cid}  verified  ${bytes} bytes`])
  }).pipe(withLibrary)
).pipe(Command.withDescription("Fetches the gateway's CAR of a CID and checks every block"))
