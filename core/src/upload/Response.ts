/**
 * What the upload node answers: IPFS `add` entries `{ Name, Hash, Size }` (`Size` a string, as
 * kubo writes it), as one JSON document (an object, or an array for encrypted uploads) or as
 * NDJSON, one entry per line, the root last. Every shape is read into a list and each entry is
 * decoded with {@link UploadedEntry}; a refusal's JSON `error` text becomes `UploadRejected`.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { InvalidResponse, UploadRejected } from "../Errors.ts"
import { Cid } from "../schema/Cid.ts"

/** One entry of an upload's answer. */
export const UploadedEntry = Schema.Struct({
  /** The file's (or folder's) name as the node stored it. */
  Name: Schema.String,
  /** Its CID. */
  Hash: Cid,
  /** Its cumulative DAG size in bytes, as a decimal string. */
  Size: Schema.String
}).annotate({ identifier: "UploadedEntry" })

export type UploadedEntry = typeof UploadedEntry.Type

const decodeEntries = Schema.decodeUnknownEffect(Schema.Array(UploadedEntry))

/** One root of a `dag/import` answer: kubo's `{ Root: { Cid: { "/": cid } } }`, with the `Name`/`Hash`/`Size` some nodes add. */
export const CarRoot = Schema.Struct({
  Root: Schema.Struct({
    Cid: Schema.Struct({ "/": Cid }),
    PinErrorMsg: Schema.optionalKey(Schema.String)
  }),
  Name: Schema.optionalKey(Schema.String),
  Hash: Schema.optionalKey(Schema.String),
  Size: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "CarRoot" })

export type CarRoot = typeof CarRoot.Type

const decodeCarRoots = Schema.decodeUnknownEffect(Schema.Array(CarRoot))

const parseDocuments = (text: string): ReadonlyArray<unknown> | undefined => {
  const trimmed = text.trim()
  if (trimmed === "") return undefined
  try {
    const one: unknown = JSON.parse(trimmed)
    return Array.isArray(one) ? one : [one]
  } catch {
    // NDJSON: every non-empty line a document.
    try {
      return trimmed
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line): unknown => JSON.parse(line))
    } catch {
      return undefined
    }
  }
}

/** The entries of an answer body, in the node's order. */
export const entries = (text: string, url: string): Effect.Effect<ReadonlyArray<UploadedEntry>, InvalidResponse> => {
  const documents = parseDocuments(text)
  if (documents === undefined || documents.length === 0) {
    return Effect.fail(new InvalidResponse({ url, detail: "the node's answer is not JSON" }))
  }
  return decodeEntries(documents).pipe(Effect.mapError((e) => new InvalidResponse({ url, detail: e.message })))
}

/** The roots of a `dag/import` answer, in the node's order. */
export const carRoots = (text: string, url: string): Effect.Effect<ReadonlyArray<CarRoot>, InvalidResponse> => {
  const documents = parseDocuments(text)
  if (documents === undefined || documents.length === 0) {
    return Effect.fail(new InvalidResponse({ url, detail: "the node's answer is not JSON" }))
  }
  return decodeCarRoots(documents).pipe(Effect.mapError((e) => new InvalidResponse({ url, detail: e.message })))
}

/** A refusal with a JSON `error` text, as `UploadRejected`; `undefined` when the body has none. */
export const rejection = (status: number, body: string): UploadRejected | undefined => {
  try {
    const parsed: unknown = JSON.parse(body)
    if (typeof parsed === "object" && parsed !== null && "error" in parsed) {
      const reason = parsed.error
      if (typeof reason === "string" && reason !== "") return new UploadRejected({ status, reason })
    }
  } catch {
    // not JSON: the status wording applies
  }
  return undefined
}
