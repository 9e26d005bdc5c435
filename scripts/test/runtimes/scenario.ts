/**
 * The one scenario every runtime of the matrix runs (`npm run test:runtimes`): Node, Bun and Deno
 * through `main.ts`, a Cloudflare worker in workerd (and the same bundle in a Chromium page)
 * through `worker.ts`, all against the local
 * network served on loopback. It imports nothing but `effect` and the library, so that a worker
 * bundle of it holds no `node:` module.
 *
 * Each step checks what it got and fails with `ScenarioFailed` naming the step; the report lists
 * the steps done, for the runner to compare across runtimes.
 */
import { Data, Effect, Redacted, Stream } from "effect"
import {
  AccessControl,
  Auth,
  Download,
  FileCipher,
  Files,
  Ipns,
  KeyShards,
  type Lighthouse,
  Signer,
  Upload
} from "lighthouse-effect"

/** What the runner gives the scenario. */
export interface ScenarioInput {
  /** The served network's hosts, `http://127.0.0.1:<port>` each. */
  readonly hosts: { readonly api: string; readonly node: string; readonly gateway: string; readonly encryption: string }
  /** The owner's and a friend's private keys (fresh per runtime, so that runs do not meet). */
  readonly ownerKey: string
  readonly friendKey: string
  /** A file on the runner's disk holding `pathContent`. */
  readonly path: string
  readonly pathContent: string
  /** Whether this runtime has a file system (Node, Bun, Deno) or not (a worker). */
  readonly fileSystem: boolean
}

/** What the scenario did, for the runner. */
export interface ScenarioReport {
  /** `navigator.userAgent`: `Node.js/24`, `Bun/1.4.5`, `Deno/2.9.5`, `Cloudflare-Workers`. */
  readonly userAgent: string
  /** The Node version the runtime claims (Bun and Deno claim one), or null. */
  readonly node: string | null
  /** Whether the library took its Node paths (`FileCipher.isNode`). */
  readonly isNode: boolean
  readonly steps: ReadonlyArray<string>
  /** The plain upload's CID: the same bytes give the same CID on every runtime. */
  readonly plainCid: string
  /** How the path input ended: its CID, or the typed error's tag and reason. */
  readonly pathInput: string
}

/** A step got something else than it should. */
export class ScenarioFailed extends Data.TaggedError("ScenarioFailed")<{
  readonly step: string
  readonly detail: string
}> {
  override get message() {
    return `${this.step}: ${this.detail}`
  }
}

/** The layer options of the scenario: the served hosts; the key nodes asked all at once. */
export const layerOptions = (input: ScenarioInput): Lighthouse.Options => ({
  hosts: input.hosts,
  nodes: { mode: "concurrent" }
})

const check = (step: string, ok: boolean, detail: string) =>
  ok ? Effect.void : Effect.fail(new ScenarioFailed({ step, detail }))

const equalBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i])

/** `length` bytes of a fixed pseudo-random sequence (the same on every runtime, unlike `crypto`). */
export const patternBytes = (length: number, seed: number): Uint8Array => {
  const bytes = new Uint8Array(length)
  let state = seed >>> 0
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    bytes[i] = state >>> 24
  }
  return bytes
}

// Larger than one 256 KiB UnixFS chunk, so that the verified download walks a tree of blocks.
const plainBytes = patternBytes(300_000, 1)
const secretBytes = patternBytes(70_000, 2)

interface Session {
  readonly owner: Signer.Service
  readonly friend: Signer.Service
  readonly apiKey: Redacted.Redacted<string>
  readonly token: Redacted.Redacted<string>
}

/** Sign in: an API key for the owner, and the key nodes' JWT for owner and friend. */
const signIn = (input: ScenarioInput) =>
  Effect.gen(function* () {
    const auth = yield* Auth.Auth
    const owner = yield* Signer.makeFromPrivateKey(Redacted.make(input.ownerKey))
    const friend = yield* Signer.makeFromPrivateKey(Redacted.make(input.friendKey))
    const apiKey = yield* auth.createApiKey(owner)
    const token = yield* auth.token(owner)
    yield* check("sign in", Redacted.value(token).split(".").length === 3, "the key nodes' token is not a JWT")
    return { owner, friend, apiKey, token } satisfies Session
  })

/** A plain upload, then a download whose every block is checked against the CID. */
const plainRoundTrip = (session: Session) =>
  Effect.gen(function* () {
    const entry = yield* Upload.Upload.use((upload) =>
      upload.buffer(plainBytes, { apiKey: session.apiKey, name: "plain.bin" })
    )
    const retrieved = yield* Download.Download.use((download) =>
      download.retrieve(entry.Hash, { verification: "required" })
    )
    yield* check("verified download", retrieved.verification.verified, "the gateway's answer was not verified")
    yield* check("verified download", equalBytes(retrieved.bytes, plainBytes), "other bytes came back")
    return entry.Hash
  })

/** An encrypted upload (its key shards saved on the 5 nodes), then a download decrypted by the owner. */
const encryptedRoundTrip = (session: Session) =>
  Effect.gen(function* () {
    const entry = yield* Upload.Upload.use((upload) =>
      upload.encryptedBuffer(secretBytes, {
        apiKey: session.apiKey,
        address: session.owner.address,
        token: session.token,
        name: "secret.bin"
      })
    )
    const decrypted = yield* Download.Download.use((download) =>
      download.bytes(entry.Hash, { decrypt: { signer: session.owner } })
    )
    yield* check("decrypting download", equalBytes(decrypted, secretBytes), "the plaintext differs")
    const stored = yield* Download.Download.use((download) => download.bytes(entry.Hash))
    yield* check(
      "decrypting download",
      stored.length === secretBytes.length + 44,
      `the stored file has ${stored.length} bytes, not salt, IV and tag around the plaintext`
    )
    return entry.Hash
  })

/**
 * Shards of a new key saved for a file of this run (a CID another run made would be another
 * owner's: `Access Denied`) and recovered from 3 nodes.
 */
const keyShardsRoundTrip = (session: Session) =>
  Effect.gen(function* () {
    const shards = yield* KeyShards.KeyShards
    const { Hash: cid } = yield* Upload.Upload.use((upload) =>
      upload.text(`the key of ${session.owner.address}\n`, { apiKey: session.apiKey, name: "key.txt" })
    )
    const generated = yield* KeyShards.generate()
    yield* shards.save({ cid, address: session.owner.address, token: session.token, keyShards: generated.keyShards })
    const recovered = yield* shards.recover({ cid, address: session.owner.address, token: session.token })
    yield* check("key shards", recovered.nodes.length === 3, `recovered from nodes ${recovered.nodes.join(", ")}`)
    const key = yield* KeyShards.recoverKey(recovered.shards)
    yield* check(
      "key shards",
      Redacted.value(key) === Redacted.value(generated.masterKey),
      "the recovered key is not the saved one"
    )
    return cid
  })

/** An access condition set and read back; the friend is refused, then shared with, then decrypts. */
const accessCondition = (session: Session, cid: string) =>
  Effect.gen(function* () {
    const access = yield* AccessControl.AccessControl
    const download = yield* Download.Download
    const condition = {
      id: 1,
      chain: "Polygon",
      method: "getBalance",
      standardContractType: "",
      parameters: [":userAddress"],
      returnValueTest: { comparator: ">=", value: "1" }
    }
    yield* access.update({ address: session.owner.address, cid, token: session.token, conditions: [condition] })
    const read = yield* access.get(cid)
    yield* check("access condition", JSON.stringify(read.conditions) === JSON.stringify([condition]), "not read back")
    // No chain behind the local network here: the friend's balance cannot be shown, so the nodes refuse.
    const refused = yield* Effect.flip(download.bytes(cid, { decrypt: { signer: session.friend } }))
    yield* check("access condition", refused._tag === "AccessDenied", `the friend got ${refused._tag}`)
    yield* access.share({
      address: session.owner.address,
      cid,
      token: session.token,
      shareTo: [session.friend.address]
    })
    const shared = yield* download.bytes(cid, { decrypt: { signer: session.friend } })
    yield* check("access condition", equalBytes(shared, secretBytes), "the friend decrypted other bytes")
  })

/** An IPNS name published for the plain file and listed; then removed. */
const ipnsName = (session: Session, cid: string) =>
  Effect.gen(function* () {
    const ipns = yield* Ipns.Ipns
    const key = yield* ipns.generateKey(session.apiKey)
    const published = yield* ipns.publishRecord(session.apiKey, { cid, keyName: key.ipnsName })
    yield* check("ipns", published.Value === `/ipfs/${cid}`, `published ${published.Value}`)
    const records = yield* ipns.records(session.apiKey)
    const listed = records.find((record) => record.ipnsName === key.ipnsName)
    yield* check("ipns", listed?.cid === cid, `listed ${JSON.stringify(listed)}`)
    yield* ipns.removeKey(session.apiKey, key.ipnsName)
  })

/** File info of each upload, a typed refusal of a bad CID, and every upload in the list. */
const filesAndList = (
  session: Session,
  uploaded: { readonly plainCid: string; readonly secretCid: string; readonly keyCid: string }
) =>
  Effect.gen(function* () {
    const files = yield* Files.Files
    const { plainCid, secretCid, keyCid } = uploaded
    const info = yield* files.fileInfo(plainCid)
    yield* check(
      "file info",
      info.fileName === "plain.bin" && info.fileSizeInBytes === String(plainBytes.length) && !info.encryption,
      JSON.stringify(info)
    )
    const secret = yield* files.fileInfo(secretCid)
    yield* check("file info", secret.encryption, "the encrypted upload is not marked encrypted")
    const invalid = yield* Effect.flip(files.fileInfo("not-a-cid"))
    yield* check("file info", invalid._tag === "InvalidCid", `a bad CID gave ${invalid._tag}`)
    const listed = yield* Stream.runCollect(files.uploads(session.apiKey))
    const cids = listed.map((file) => file.cid).sort()
    yield* check(
      "uploads list",
      JSON.stringify(cids) === JSON.stringify([plainCid, secretCid, keyCid].sort()),
      `${cids}`
    )
  })

/** A path input: uploaded where there is a file system; elsewhere the file system's typed refusal. */
const pathInput = (session: Session, input: ScenarioInput) =>
  Effect.gen(function* () {
    const attempt = yield* Effect.result(
      Upload.Upload.use((upload) => upload.file(Upload.Input.path(input.path), { apiKey: session.apiKey }))
    )
    if (input.fileSystem) {
      if (attempt._tag === "Failure")
        return yield* new ScenarioFailed({ step: "path input", detail: attempt.failure.message })
      const text = yield* Download.Download.use((download) => download.bytes(attempt.success.Hash))
      yield* check("path input", new TextDecoder().decode(text) === input.pathContent, "other bytes came back")
      return attempt.success.Hash
    }
    if (attempt._tag === "Success") return yield* new ScenarioFailed({ step: "path input", detail: "read a path" })
    const error = attempt.failure
    const reason = error._tag === "PlatformError" ? error.reason._tag : ""
    yield* check("path input", reason === "NotFound", `${error._tag} ${reason}: ${error.message}`)
    return `${error._tag} ${reason}`
  })

/** The whole scenario, over the services of a `Lighthouse` layer. */
export const scenario = (input: ScenarioInput) =>
  Effect.gen(function* () {
    const steps: Array<string> = []
    const step = <A, E, R>(name: string, effect: Effect.Effect<A, E, R>) =>
      effect.pipe(Effect.tap(() => Effect.sync(() => steps.push(name))))
    const session = yield* step("sign in", signIn(input))
    const plainCid = yield* step("plain upload, verified download", plainRoundTrip(session))
    const secretCid = yield* step("encrypted upload, decrypting download", encryptedRoundTrip(session))
    const keyCid = yield* step("key shards saved and recovered", keyShardsRoundTrip(session))
    yield* step("access condition", accessCondition(session, secretCid))
    yield* step("ipns", ipnsName(session, plainCid))
    yield* step("file info, uploads list", filesAndList(session, { plainCid, secretCid, keyCid }))
    const path = yield* step("path input", pathInput(session, input))
    const runtime = globalThis as { readonly process?: { readonly versions?: { readonly node?: string } } }
    return {
      userAgent: navigator.userAgent,
      node: runtime.process?.versions?.node ?? null,
      isNode: FileCipher.isNode,
      steps,
      plainCid,
      pathInput: path
    } satisfies ScenarioReport
  })
