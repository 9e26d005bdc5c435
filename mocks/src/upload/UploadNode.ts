/**
 * The upload node (`https://upload.lighthouse.storage` by default): kubo's `add` and `dag/import`
 * RPC routes as the provider exposes them.
 *
 * `POST /api/v0/add?wrap-with-directory=&cid-version=&raw-leaves=&chunker=&max-file-links=` reads
 * the multipart body as a stream (the layout flags as kubo's RPC takes them: without `chunker` and
 * `max-file-links`, kubo's defaults `size-262144` and 174; `size-1048576` with 1024 links is
 * IPIP-499's `unixfs-v1-2025`, any other layout is refused with 400): every part (any field name; the provider's clients use `file`) is a file whose filename
 * is its path, `/` making directories; a part of type `application/x-directory` is an (empty)
 * directory. Bytes go from the request straight into the UnixFS importer, with kubo's settings,
 * so CIDs equal `ipfs add`'s. The answer:
 *
 * - one top-level entry (a file, or a folder whose files share a root directory): that entry as
 *   one JSON object `{ Name, Hash, Size }` (`Size` a string) — what the provider's SDK parses;
 * - `wrap-with-directory=true`: the wrapping directory alone, `Name: ""`, one JSON object;
 * - several top-level entries without wrapping: one JSON object per entry, newline-delimited
 *   (`application/x-ndjson`), as kubo streams them;
 * - `Encryption: true`: every part is stored as its own file (no directories, as the provider
 *   does for encrypted uploads) and the answer is a JSON array with one entry per part.
 *
 * Headers: `Authorization: Bearer <API key>` (or the one-time `address$signature` token), else 401
 * `{"error":"Authentication failed"}`; `Encryption`, `Mime-Type`, `X-Deal-Parameter` (JSON or
 * `null`) and `X-Storage-Type` are recorded with the upload.
 *
 * Quota: content bytes count against the account's data limit while they stream in; an upload that
 * would pass the limit is refused with 402 `{"error":"Storage quota exceeded: …"}` and leaves
 * nothing stored. Every answered entry becomes a record of the uploads list.
 *
 * The Walrus upload node (`https://upload-walrus.lighthouse.storage`) is the same node with
 * `walrus` in its context: the same routes, authentication and answers, but uploads count against
 * the account's Walrus quota (`walrusDataLimit`/`walrusDataUsed`), are recorded with storage type
 * `walrus` whatever `X-Storage-Type` says, and every answered entry gets the blob ids of its files
 * (`WalrusBlobs`), as `walrus_blobs` lists them.
 *
 * `POST /api/v0/dag/import` takes CAR files (multipart part `file`): blocks are checked against
 * their CIDs and stored; the answer per root is kubo's `{ Root: { Cid: { "/": … }, PinErrorMsg } }`
 * together with the `{ Name, Hash, Size }` the provider's SDK declares (`Size` = CAR bytes). A CAR
 * whose dag-pb links reach blocks it does not hold is taken exactly when the node holds them and
 * all under them (`CarLinks.ts`), else refused with 400; with `partialCars: "refuse"` every linked
 * block must be in the CAR. `?pin-roots=false` (kubo's flag) takes the blocks without that check.
 */
import { CarBlockIterator } from "@ipld/car"
import type { ImportCandidate } from "ipfs-unixfs-importer"
import { Verify } from "lighthouse-effect"
import { Routes } from "lighthouse-effect/contract"
import { type HttpHandler, RequestHandler } from "msw"
import type { CID } from "multiformats/cid"
import type { Account, Accounts } from "../api/Accounts.ts"
import type { Files } from "../api/Files.ts"
import type { WalrusBlobs } from "../api/WalrusBlobs.ts"
import type { Faults } from "../faults/index.ts"
import { guard, type RouteErrorLog } from "../http/Guard.ts"
import { bearerToken, queryOf } from "../http/Request.ts"
import { authenticationFailed, errorResponse, json } from "../http/Respond.ts"
import { on, unmatched } from "../http/Routes.ts"
import type { StagedWrites } from "../storage/Blocks.ts"
import { type ContentStore, verifyBlock } from "../storage/ContentStore.ts"
import { releaseOwnedChunk } from "../storage/Release.ts"
import { type AddedEntry, type AddSettings, addAll } from "../storage/Unixfs.ts"
import { carLinks, firstMissing, type PartialCars } from "./CarLinks.ts"
import { boundaryOf, MultipartError, type Part, readMultipart } from "./Multipart.ts"
import { mimeTypeOf } from "./mime.ts"

export interface UploadNodeContext {
  readonly host: string
  readonly accounts: Accounts
  readonly files: Files
  readonly content: ContentStore
  readonly faults: Faults
  /** Set on the Walrus upload node: where blob ids are recorded. Absent: the IPFS node. */
  readonly walrus?: WalrusBlobs
  /** Who hears of a route that threw; nobody when absent. */
  readonly log?: RouteErrorLog | undefined
  /** How `dag/import` takes a CAR whose links reach blocks not in it. @default "accept" */
  readonly partialCars?: PartialCars | undefined
}

/** Why an upload was refused; mapped to a status by the route. */
class Refusal extends Error {
  readonly status: number
  constructor(status: number, message: string) {
    super(message)
    this.status = status
  }
}

/** One `add` answer entry. */
export interface AddEntry {
  readonly Name: string
  readonly Hash: string
  readonly Size: string
}

interface UploadMeta {
  readonly account: Account
  readonly encryption: boolean
  readonly mimeType: string | null
  readonly dealParameters: unknown
  readonly storageType: string
  /** The quota this upload counts against. */
  readonly quota: Quota
}

/** One of an account's quotas: IPFS (`dataLimit`/`dataUsed`) or Walrus (`walrusDataLimit`/`walrusDataUsed`). */
interface Quota {
  readonly limit: number
  readonly used: number
  readonly charge: (bytes: number) => void
}

const quotaOf = (account: Account, walrus: boolean): Quota =>
  walrus
    ? {
        limit: account.walrusDataLimit,
        used: account.walrusDataUsed,
        charge: (bytes) => {
          account.walrusDataUsed += bytes
        }
      }
    : {
        limit: account.dataLimit,
        used: account.dataUsed,
        charge: (bytes) => {
          account.dataUsed += bytes
        }
      }

// Counts content bytes against what the quota has left, failing the upload as soon as it passes.
const quotaMeter = (quota: Quota) => {
  const remaining = Math.max(0, quota.limit - quota.used)
  let total = 0
  return {
    get total() {
      return total
    },
    async *count(body: AsyncIterable<Uint8Array>, onBytes: (n: number) => void): AsyncGenerator<Uint8Array> {
      for await (const chunk of body) {
        total += chunk.byteLength
        if (total > remaining) {
          throw new Refusal(
            402,
            `Storage quota exceeded: ${quota.used} of ${quota.limit} bytes used, this upload needs more than the ${remaining} left`
          )
        }
        onBytes(chunk.byteLength)
        yield chunk
      }
    }
  }
}

const headerMeta = (request: Request, account: Account, walrus: boolean): UploadMeta => {
  const rawDeal = request.headers.get("x-deal-parameter")
  let dealParameters: unknown = null
  if (rawDeal !== null && rawDeal.trim() !== "" && rawDeal.trim() !== "null") {
    try {
      dealParameters = JSON.parse(rawDeal)
    } catch {
      throw new Refusal(400, "X-Deal-Parameter must be JSON or null")
    }
  }
  const mime = request.headers.get("mime-type")
  return {
    account,
    encryption: (request.headers.get("encryption") ?? "").toLowerCase() === "true",
    mimeType: mime === null || mime === "" || mime === "null" ? null : mime,
    dealParameters,
    storageType: walrus ? "walrus" : (request.headers.get("x-storage-type") ?? "ipfs"),
    quota: quotaOf(account, walrus)
  }
}

const addSettings = (request: Request): AddSettings => {
  const query = queryOf(request)
  const version = query.get("cid-version") ?? "0"
  if (version !== "0" && version !== "1") throw new Refusal(400, `cid-version must be 0 or 1, got ${version}`)
  const rawLeaves = query.get("raw-leaves")
  const flag = (value: string | null, name: string) => {
    if (value === null || value === "") return undefined
    if (value === "true" || value === "false") return value === "true"
    throw new Refusal(400, `${name} must be true or false, got ${value}`)
  }
  const raw = flag(rawLeaves, "raw-leaves")
  if (flag(query.get("trickle"), "trickle") === true) throw new Refusal(400, "this node imports balanced DAGs only")
  return {
    cidVersion: version === "1" ? 1 : 0,
    ...(raw === undefined ? {} : { rawLeaves: raw }),
    wrapWithDirectory: flag(query.get("wrap-with-directory"), "wrap-with-directory") ?? false,
    profile: profileOf(query.get("chunker"), query.get("max-file-links"))
  }
}

/** The IPIP-499 profile whose file layout `chunker` and `max-file-links` state (kubo's defaults when absent). */
const profileOf = (chunker: string | null, maxFileLinks: string | null): Verify.Profile => {
  const chunkSize = chunker === null || chunker === "" ? "262144" : /^size-(\d+)$/.exec(chunker)?.[1]
  if (chunkSize === undefined) throw new Refusal(400, `chunker must be size-<bytes>, got ${chunker}`)
  const profile = Verify.PROFILES.find((name) => String(Verify.profileShape[name].chunkSize) === chunkSize)
  const links = maxFileLinks === null || maxFileLinks === "" ? "174" : maxFileLinks
  if (profile === undefined || String(Verify.profileShape[profile].maxChildren) !== links) {
    throw new Refusal(
      400,
      `chunker=size-${chunkSize} with max-file-links=${links} is no layout of this node: unixfs-v0-2015 (size-262144, 174) or unixfs-v1-2025 (size-1048576, 1024)`
    )
  }
  return profile
}

// Part path as the importer sees it: no leading slashes, no "." segments. A ".." segment would
// name an entry outside the upload (or a UnixFS entry literally called ".."): refused.
const partPath = (part: Part) => {
  const segments = (part.filename ?? "").split("/").filter((segment) => segment !== "" && segment !== ".")
  if (segments.includes("..")) {
    throw new Refusal(400, `Invalid file name ${JSON.stringify(part.filename)}: a path segment is ".."`)
  }
  return segments.join("/")
}

const isDirectoryPart = (part: Part) => (part.contentType ?? "").toLowerCase().startsWith("application/x-directory")

/**
 * The request's parts. `importing`: every part goes to `addAll`, whose chunker copies each piece
 * into its leaves as it comes, so the body's chunks the server read may be freed once read.
 */
const multipartBody = (request: Request, importing = false) => {
  const boundary = boundaryOf(request.headers.get("content-type"))
  if (boundary === undefined) throw new Refusal(400, "the request must be multipart/form-data with a boundary")
  if (request.body === null) throw new Refusal(400, "File argument 'data' is required")
  return readMultipart(request.body, boundary, {
    signal: request.signal,
    ...(importing ? { release: releaseOwnedChunk } : {})
  })
}

const entryOf = (added: AddedEntry, name: string): AddEntry => ({
  Name: name,
  Hash: added.cid.toString(),
  Size: added.size.toString()
})

/** Adds the entry to the uploads list; on Walrus, records the blobs of its files too. */
const record = (
  context: UploadNodeContext,
  meta: UploadMeta,
  entry: AddEntry,
  bytes: number,
  mimeType: string | null,
  fileCids: ReadonlyArray<string> = [entry.Hash]
) => {
  context.walrus?.record(entry.Hash, fileCids)
  return context.files.add({
    publicKey: meta.account.address,
    fileName: entry.Name,
    mimeType,
    fileSizeInBytes: String(bytes),
    cid: entry.Hash,
    encryption: meta.encryption,
    storageType: meta.storageType,
    dealParameters: meta.dealParameters
  })
}

/** CIDs of the files among `added` that lie under the top-level entry `top` (`""`: all of them). */
const filesUnder = (added: ReadonlyArray<AddedEntry>, filePaths: ReadonlySet<string>, top: string) =>
  added
    .filter(
      (entry) => filePaths.has(entry.path) && (top === "" || entry.path === top || entry.path.startsWith(`${top}/`))
    )
    .map((entry) => entry.cid.toString())

/** Plain add: one import of every part, directories from the paths. */
const addPlain = async (
  context: UploadNodeContext,
  request: Request,
  meta: UploadMeta,
  staging: StagedWrites
): Promise<Response> => {
  const settings = addSettings(request)
  const meter = quotaMeter(meta.quota)
  const filePaths = new Set<string>()
  // Per top-level name: content bytes, and the part type when it was a single file.
  const tops = new Map<string, { bytes: number; partType: string | undefined; single: boolean }>()
  let parts = 0
  async function* candidates(): AsyncGenerator<ImportCandidate> {
    for await (const part of multipartBody(request, true)) {
      parts += 1
      const path = partPath(part)
      const top = path.split("/")[0]!
      const single = !path.includes("/")
      const slot = tops.get(top) ?? { bytes: 0, partType: single ? part.contentType : undefined, single }
      tops.set(top, slot)
      if (isDirectoryPart(part)) {
        yield { path }
        continue
      }
      filePaths.add(path)
      yield {
        path,
        content: meter.count(part.body, (n) => {
          slot.bytes += n
        })
      }
    }
  }
  const added: Array<AddedEntry> = []
  for await (const entry of addAll(candidates(), staging, settings)) added.push(entry)
  if (parts === 0) throw new Refusal(400, "File argument 'data' is required")

  let answers: Array<{ entry: AddEntry; bytes: number; mimeType: string | null; top: string }>
  if (settings.wrapWithDirectory) {
    const root = added.at(-1)!
    answers = [{ entry: entryOf(root, ""), bytes: meter.total, mimeType: null, top: "" }]
  } else {
    answers = added
      .filter((entry) => !entry.path.includes("/"))
      .map((entry) => {
        const top = tops.get(entry.path)
        const isFile = top?.single === true
        const partType = top?.partType?.toLowerCase()
        const guessed =
          partType !== undefined &&
          partType !== "application/octet-stream" &&
          !partType.startsWith("application/x-directory")
            ? partType
            : mimeTypeOf(entry.path)
        return {
          // A part without a filename has no name; kubo then names the entry by its CID.
          entry: entryOf(entry, entry.path === "" ? entry.cid.toString() : entry.path),
          bytes: top?.bytes ?? 0,
          mimeType: isFile ? (meta.mimeType ?? guessed) : null,
          top: entry.path
        }
      })
  }
  staging.commit()
  meta.quota.charge(meter.total)
  for (const answer of answers)
    record(context, meta, answer.entry, answer.bytes, answer.mimeType, filesUnder(added, filePaths, answer.top))
  if (answers.length === 1) return json(answers[0]!.entry)
  return new Response(answers.map((answer) => `${JSON.stringify(answer.entry)}\n`).join(""), {
    status: 200,
    headers: { "content-type": "application/x-ndjson", "x-chunked-output": "1" }
  })
}

/** Encrypted add: each part on its own, answered as a JSON array. */
const addEncrypted = async (
  context: UploadNodeContext,
  request: Request,
  meta: UploadMeta,
  staging: StagedWrites
): Promise<Response> => {
  const settings = { ...addSettings(request), wrapWithDirectory: false }
  const meter = quotaMeter(meta.quota)
  const answers: Array<{ entry: AddEntry; bytes: number; mimeType: string | null }> = []
  for await (const part of multipartBody(request, true)) {
    if (isDirectoryPart(part)) continue
    // The provider flattens encrypted folders into file names; a "/" left in a name is kept as "-".
    const name = partPath(part).replaceAll("/", "-")
    let bytes = 0
    const content = meter.count(part.body, (n) => {
      bytes += n
    })
    let last: AddedEntry | undefined
    for await (const entry of addAll([{ path: name, content }], staging, settings)) last = entry
    if (last === undefined) throw new Refusal(400, "File argument 'data' is required")
    answers.push({
      entry: entryOf(last, name === "" ? last.cid.toString() : name),
      bytes,
      mimeType: meta.mimeType ?? mimeTypeOf(name)
    })
  }
  if (answers.length === 0) throw new Refusal(400, "File argument 'data' is required")
  staging.commit()
  meta.quota.charge(meter.total)
  for (const answer of answers) record(context, meta, answer.entry, answer.bytes, answer.mimeType)
  return json(answers.map((answer) => answer.entry))
}

/** kubo's `pin-roots` (default `true`): whether the roots' DAGs must be whole. */
const pinRootsOf = (request: Request): boolean => {
  const value = queryOf(request).get("pin-roots")
  if (value === null || value === "" || value === "true") return true
  if (value === "false") return false
  throw new Refusal(400, `pin-roots must be true or false, got ${value}`)
}

/** Refuses a CAR whose links reach a block neither in it nor (with `partialCars: "accept"`) whole on the node. */
const checkWhole = async (context: UploadNodeContext, outside: ReadonlyArray<{ cid: CID; parent: CID }>) => {
  if (outside.length === 0) return
  if (context.partialCars === "refuse") {
    const { cid, parent } = outside[0]!
    throw new Refusal(400, `partial CARs are not accepted: block ${cid} (linked from ${parent}) is not in the CAR`)
  }
  const missing = await firstMissing(context.content, outside)
  if (missing !== undefined) {
    throw new Refusal(
      400,
      `the CAR's DAG is incomplete: block ${missing.cid} (linked from ${missing.parent}) is neither in the CAR nor on the node`
    )
  }
}

/** `dag/import`: every CAR part's blocks, checked and stored; one answer per root. */
const dagImport = async (
  context: UploadNodeContext,
  request: Request,
  meta: UploadMeta,
  staging: StagedWrites
): Promise<Response> => {
  const meter = quotaMeter(meta.quota)
  const pinRoots = pinRootsOf(request)
  const answers: Array<{ entry: Record<string, unknown> & AddEntry; bytes: number }> = []
  for await (const part of multipartBody(request)) {
    if (isDirectoryPart(part)) continue
    let carBytes = 0
    let blockBytes = 0
    const links = carLinks()
    const body = (async function* () {
      for await (const chunk of part.body) {
        carBytes += chunk.byteLength
        yield chunk
      }
    })()
    let blocks: CarBlockIterator
    try {
      blocks = await CarBlockIterator.fromIterable(body)
    } catch (error) {
      throw new Refusal(400, `not a CAR file: ${error instanceof Error ? error.message : String(error)}`)
    }
    // Block bytes are what the account is charged for; they are checked before being kept.
    for await (const block of meter.count(
      (async function* () {
        for await (const { cid, bytes } of blocks) {
          if (!(await verifyBlock(cid, bytes))) throw new Refusal(400, `block ${cid} does not match its CID`)
          if (pinRoots) links.add(cid, bytes)
          await staging.put(cid, bytes)
          yield bytes
        }
      })(),
      (n) => {
        blockBytes += n
      }
    )) {
      void block
    }
    const roots = await blocks.getRoots()
    if (roots.length === 0) throw new Refusal(400, "the CAR has no root")
    if (pinRoots) await checkWhole(context, links.outside())
    const name = partPath(part)
    for (const root of roots) {
      if (!(await staging.has(root))) throw new Refusal(400, `the CAR does not contain its root block ${root}`)
      answers.push({
        entry: {
          Root: { Cid: { "/": root.toString() }, PinErrorMsg: "" },
          Name: name,
          Hash: root.toString(),
          Size: String(carBytes)
        },
        bytes: blockBytes
      })
    }
  }
  if (answers.length === 0) throw new Refusal(400, "File argument 'data' is required")
  staging.commit()
  meta.quota.charge(meter.total)
  for (const answer of answers) record(context, meta, answer.entry, answer.bytes, "application/vnd.ipld.car")
  if (answers.length === 1) return json(answers[0]!.entry)
  return new Response(answers.map((answer) => `${JSON.stringify(answer.entry)}\n`).join(""), {
    status: 200,
    headers: { "content-type": "application/x-ndjson" }
  })
}

/**
 * msw keeps a clone of every request for its logs; the clone is one branch of a tee of the body, so
 * while the handler reads the other branch, the unread clone would hold the whole upload in memory.
 * Uploads give that copy up to stay in constant memory.
 */
const releaseLoggingClone = (request: Request) => {
  const clone = RequestHandler.cache.get(request)
  if (clone?.body != null && !clone.bodyUsed) clone.body.cancel().catch(() => {})
}

const clientClosed = (request: Request, error: unknown): boolean =>
  request.signal.aborted ||
  (error instanceof Error &&
    (error.name === "AbortError" || (error as { code?: unknown }).code === "ERR_STREAM_PREMATURE_CLOSE"))

/**
 * An upload route: the caller's key, then `run` over a staging of the content store. A refusal
 * answers its status and a client gone away 499, each leaving nothing stored; anything else is a
 * bug, left to the host's guard.
 */
const staged =
  (
    context: UploadNodeContext,
    run: (context: UploadNodeContext, request: Request, meta: UploadMeta, staging: StagedWrites) => Promise<Response>
  ) =>
  async ({ request }: { readonly request: Request }): Promise<Response> => {
    releaseLoggingClone(request)
    const account = await context.accounts.authenticate(bearerToken(request), { oneTime: true })
    if (account === undefined) return authenticationFailed()
    const staging = context.content.staging()
    try {
      return await run(context, request, headerMeta(request, account, context.walrus !== undefined), staging)
    } catch (error) {
      // Blocks this upload brought in go again: a refused or broken upload leaves nothing stored.
      await staging.discard()
      if (error instanceof Refusal) return errorResponse(error.status, error.message)
      if (error instanceof MultipartError) return errorResponse(400, error.message)
      // The client went away mid-body (its source failed, or it was interrupted): nothing is
      // stored and nobody reads the answer, as a server sees a closed connection.
      if (clientClosed(request, error)) return errorResponse(499, "Client Closed Request")
      throw error
    }
  }

export const uploadNodeHandlers = (context: UploadNodeContext): Array<HttpHandler> => {
  const host = context.host
  const route = (answer: (info: { readonly request: Request }) => Response | Promise<Response>) =>
    context.faults.wrap("node", guard({ name: "node", log: context.log }, answer))
  return [
    on(
      host,
      Routes.uploadNode.add,
      route(staged(context, (c, r, m, s) => (m.encryption ? addEncrypted(c, r, m, s) : addPlain(c, r, m, s))))
    ),
    on(host, Routes.uploadNode.dagImport, route(staged(context, dagImport))),
    unmatched(
      host,
      route(() => errorResponse(404, "Not Found"))
    )
  ]
}
