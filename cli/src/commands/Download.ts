/**
 * `download <cid> [-o FILE|-]` (verified; `--decrypt` with the wallet; `--resume` after an
 * interruption), `cat <cid>` (to stdout) and `verify <cid>` (the gateway's CAR, every block
 * checked). Each is a call of the library's `Download` service; the command line only picks the
 * output.
 *
 * A download writes only to the path chosen (`-o`, or `./<cid>`), never replaces a file without
 * `--force`, and the library's `toFile` makes the file appear only once the content checked.
 *
 * @since 0.1.0
 */

import { Argument, Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import { identity } from "effect/Function"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import { Download, Errors, type Upload } from "lighthouse-effect"
import * as Credentials from "../Credentials.ts"
import { WouldOverwrite } from "../Errors.ts"
import * as Output from "../Output.ts"
import * as Progress from "../Progress.ts"

const cid = Argument.String("cid").pipe(
  Argument.withDescription("The content's CID; CID/path/inside or /ipfs/CID/path for an entry of a folder")
)

/** What a command is given: `CID`, `CID/path/inside` or `/ipfs/CID/path`, as the CID and the path inside it. */
export const addressOf = (given: string): { readonly cid: string; readonly path: string | undefined } => {
  const [cid = "", ...inside] = given
    .replace(/^\/ipfs\//, "")
    .split("/")
    .filter((segment) => segment !== "")
  return { cid, path: inside.length === 0 ? undefined : inside.join("/") }
}

/** The library's walk found a folder where a file's bytes were asked for. */
const isFolder = (error: unknown): boolean =>
  error instanceof Errors.ContentVerificationFailed &&
  error.problem === "not-a-file" &&
  /is a (directory|hamt-sharded-directory), not a file$/.test(error.detail)

/** A folder where a file was asked for is said to be a folder (`FolderNotAFile`), not content failing verification. */
const folderSaid =
  (address: string) =>
  <E>(error: E): E | Errors.FolderNotAFile =>
    isFolder(error) ? new Errors.FolderNotAFile({ address }) : error

const decryptFlags = {
  decrypt: Flag.Boolean("decrypt").pipe(
    Flag.withDescription("Decrypt with the key recovered from the key nodes for your wallet"),
    Flag.withDefault(false)
  )
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

const decryption = (decrypt: boolean) =>
  decrypt ? Effect.map(Credentials.signer, (signer) => ({ decrypt: { signer } })) : Effect.succeed({})

/**
 * The stored bytes, verified; with `unverified`, read unverified when the gateway cannot answer
 * verifiably (that refusal comes before any byte), `report` then saying so.
 */
const storedBytes = (download: Download.Download["Service"], given: string, unverified: boolean) => {
  const { cid, path } = addressOf(given)
  let report: Download.VerificationReport = { verified: true }
  const verified = download.stream(cid, { verification: "required", path }).pipe(Stream.mapError(folderSaid(given)))
  const stream = unverified
    ? Stream.catchTag(verified, "UnverifiableGateway", (refused) =>
        Stream.suspend(() => {
          const reason = `the gateway answered ${refused.answer} to ?format=${refused.format}`
          report = { verified: false, reason }
          // Said on stderr as the library says it for a file: stdout holds only the content.
          return Stream.fromEffectDrain(Effect.logWarning(`Downloading ${cid} unverified: ${reason}`)).pipe(
            Stream.concat(download.stream(cid, { verification: "off", path }))
          )
        })
      )
    : verified
  return { stream, report: () => report }
}

/** The content on stdout: streamed as verified when plain, whole once the tag checks when decrypted. */
const toStdout = (cid: string, decrypt: boolean, unverified: boolean) =>
  Effect.gen(function* () {
    const download = yield* Download.Download
    if (decrypt) {
      const { cid: root, path } = addressOf(cid)
      const options = { ...(yield* decryption(true)), ...verificationOf(unverified), path }
      const retrieved = yield* Progress.around(
        () => download.retrieve(root, options).pipe(Effect.mapError(folderSaid(cid))),
        {
          bytesOf: (retrieved) => retrieved.bytes.length
        }
      )
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

/**
 * A folder's download: its tree into `-o` (else `./<cid>`), every block checked; what was
 * refused or skipped is said on stderr, one line each, and in the result.
 */
const folderInto = (given: string, output: Option.Option<string>, force: boolean) =>
  Effect.gen(function* () {
    const { cid, path } = addressOf(given)
    const dir = (yield* Path.Path).resolve(Option.getOrElse(output, () => cid))
    const report = yield* (yield* Download.Download).toDirectory(cid, dir, { force, path })
    for (const { path: skipped, reason } of report.skipped)
      yield* Output.note(`skipped ${JSON.stringify(skipped)}: ${reason}`)
    yield* Output.result({ ...report, output: dir }, [
      `${dir}  ${report.files} files  ${report.bytes} bytes  (${report.written.length} written, ${report.kept.length} kept, ${report.skipped.length} skipped)`
    ])
  })

/**
 * The bytes an interrupted download into `target` left for a re-run: `<target>.partial`, which the
 * library keeps with `--resume` (every byte in it verified); without `--resume` nothing is kept.
 */
const keptBytes = (fs: FileSystem.FileSystem, target: string) =>
  fs.stat(`${target}.partial`).pipe(
    Effect.map((info) => (info.type === "File" ? Number(info.size) : 0)),
    Effect.orElseSucceed(() => 0)
  )

/**
 * `transfer` while `arrived` (the bytes written so far) is reported as progress every 250 ms
 * when it grew; the total is not known before the download's end.
 */
const watchingGrowth =
  (arrived: Effect.Effect<number>, onProgress: (progress: Upload.Progress.Progress) => Effect.Effect<void>) =>
  <A, E, R>(transfer: Effect.Effect<A, E, R>) => {
    let reported = 0
    const report = Effect.flatMap(arrived, (bytes) => {
      if (bytes <= reported) return Effect.void
      reported = bytes
      return onProgress({ bytesSent: bytes, totalBytes: undefined })
    })
    return Effect.raceFirst(transfer, Effect.forever(Effect.delay(report, "250 millis")))
  }

/**
 * What an interrupted download into a file says (exit 130 follows): the bytes on disk and how to
 * go on from them, as one JSON value with `--json`, else one line on stderr.
 */
const reportInterrupted = (interrupted: {
  readonly cid: string
  readonly target: string
  readonly resume: boolean
  readonly kept: Effect.Effect<number>
}) =>
  Effect.gen(function* () {
    const bytesOnDisk = yield* interrupted.kept
    const partial = bytesOnDisk > 0 ? `${interrupted.target}.partial` : null
    const resumeWith = `lighthouse-effect download ${interrupted.cid} -o ${interrupted.target} --resume`
    const value = {
      cid: interrupted.cid,
      output: interrupted.target,
      interrupted: true,
      bytesOnDisk,
      partial,
      resumeWith
    }
    if (yield* Output.Json) return yield* Output.stdout(Output.toJson(value))
    yield* Output.stderr(
      Output.printable(
        partial === null
          ? `Interrupted: nothing kept${interrupted.resume ? "" : " (only --resume keeps a partial download)"}; run \`${resumeWith}\` to start again and keep what arrives`
          : `Interrupted: ${bytesOnDisk} bytes verified in ${partial}; run \`${resumeWith}\` to go on`
      )
    )
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
    force: Flag.Boolean("force").pipe(
      Flag.withDescription("Replace an existing file (in a folder: one whose bytes differ from the folder's)"),
      Flag.withDefault(false)
    ),
    resume: Flag.Boolean("resume").pipe(
      Flag.withDescription(
        "Go on from an interrupted download (<file>.partial, or for a plain file the file itself) after checking its bytes against the CID"
      ),
      Flag.withDefault(false)
    ),
    unverified: unverifiedFlag,
    ...decryptFlags
  },
  ({ cid: given, output, force, resume, unverified, decrypt }) =>
    Effect.gen(function* () {
      if (Option.getOrUndefined(output) === "-") {
        const summary = yield* toStdout(given, decrypt, unverified)
        return yield* Output.result({ cid: given, output: "-", ...summary }, [], { contentOnStdout: true })
      }
      const { cid, path } = addressOf(given)
      const target = yield* targetOf(cid, output, force || (resume && !decrypt))
      const download = yield* Download.Download
      const fs = yield* FileSystem.FileSystem
      // toFile reports the bytes it wrote (not with --resume, where the growth of
      // <target>.partial is watched instead); either is reported every 250 ms, the final event
      // has the file's size.
      let bytesWritten = 0
      const options = {
        ...(yield* decryption(decrypt)),
        ...verificationOf(unverified),
        resume,
        path,
        onProgress: (progress: Download.FileProgress) => {
          bytesWritten = progress.bytesWritten
        }
      }
      const kept = keptBytes(fs, target)
      const arrived = resume ? kept : Effect.sync(() => bytesWritten)
      const written = yield* Progress.around(
        (onProgress) =>
          Effect.gen(function* () {
            const verification = yield* download.toFile(cid, target, options)
            return { verification, bytes: Number((yield* fs.stat(target)).size) }
          }).pipe(onProgress !== undefined ? watchingGrowth(arrived, onProgress) : identity),
        { bytesOf: (written) => written.bytes, bytesKept: kept }
      ).pipe(
        Effect.catchIf(isFolder, () => Effect.void),
        Effect.onInterrupt(() => reportInterrupted({ cid: given, target, resume, kept }))
      )
      if (written === undefined) return yield* folderInto(given, output, force)
      yield* Output.result({ cid: given, output: target, ...written }, [target])
    })
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
  ({ cid, unverified, decrypt }) =>
    Effect.gen(function* () {
      const summary = yield* toStdout(cid, decrypt, unverified)
      yield* Output.result({ cid, ...summary }, [], { contentOnStdout: true })
    })
).pipe(Command.withDescription("Writes content to stdout, checked against its CID"))

export const verify = Command.make("verify", { cid }, ({ cid: given }) =>
  Effect.gen(function* () {
    const download = yield* Download.Download
    const { cid, path } = addressOf(given)
    const bytes = yield* download.stream(cid, { verification: "required", path }).pipe(
      Stream.runFold(
        () => 0,
        (total, chunk: Uint8Array) => total + chunk.length
      ),
      Effect.map((bytes) => ({ bytes, files: undefined as number | undefined })),
      // A folder: its whole tree checked, every block of every file.
      Effect.catchIf(isFolder, () =>
        Effect.map(download.list(cid, { recursive: true, path }), (entries) => {
          const files = entries.flatMap((entry) => (entry.type === "file" ? [entry.size] : []))
          return { bytes: files.reduce((total, size) => total + size, 0), files: files.length }
        })
      ),
      Effect.mapError(folderSaid(given))
    )
    const what = bytes.files === undefined ? "" : `  ${bytes.files} files`
    yield* Output.result({ cid: given, verified: true, ...bytes }, [`${given}  verified${what}  ${bytes.bytes} bytes`])
  })
).pipe(
  Command.withDescription(
    "Fetches the gateway's CAR of a CID (a file, or a folder's whole tree) and checks every block"
  )
)
