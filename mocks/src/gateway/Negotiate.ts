/**
 * What a gateway request asks for, read from its URL and headers: the response format (`?format=`
 * first, then `Accept`), the CAR parameters, a `Range` header and the `entity-bytes` parameter.
 * Pure parsing; each answer is a value or a refusal with the message the gateway sends.
 */
import { MediaTypes } from "../http/MediaTypes.ts"

export type DagScope = "all" | "entity" | "block"

export interface CarOptions {
  /** Duplicate blocks sent every time they occur (`y`) or once (`n`, the default). */
  readonly duplicates: boolean
  readonly scope: DagScope
  /** `entity-bytes`, when given. */
  readonly entityBytes: EntityBytes | undefined
}

export type Format =
  | { readonly kind: "deserialized" }
  | { readonly kind: "raw" }
  | { readonly kind: "car"; readonly options: CarOptions }
  | { readonly kind: "ipns-record" }

export type Refusal = { readonly kind: "refused"; readonly status: 400 | 406; readonly message: string }

interface MediaRange {
  readonly type: string
  readonly params: ReadonlyMap<string, string>
  readonly q: number
}

/** The media ranges of an `Accept` header, highest preference first (ties keep their order). */
export const parseAccept = (header: string | null): ReadonlyArray<MediaRange> => {
  if (header === null || header.trim() === "") return []
  const ranges = header.split(",").map((part, index) => {
    const [type = "", ...rest] = part.split(";").map((piece) => piece.trim())
    const params = new Map<string, string>()
    for (const param of rest) {
      const at = param.indexOf("=")
      if (at > 0)
        params.set(
          param.slice(0, at).trim().toLowerCase(),
          param
            .slice(at + 1)
            .trim()
            .replace(/^"|"$/g, "")
        )
    }
    const q = Number(params.get("q") ?? "1")
    params.delete("q")
    return { type: type.toLowerCase(), params, q: Number.isFinite(q) ? q : 0, index }
  })
  return ranges
    .filter((range) => range.q > 0 && range.type !== "")
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map(({ type, params, q }) => ({ type, params, q }))
}

const formatNames: Record<string, string> = {
  raw: MediaTypes.raw,
  car: MediaTypes.car,
  "ipns-record": MediaTypes.ipnsRecord
}

const carOptions = (url: URL, accepted: MediaRange | undefined): CarOptions | Refusal => {
  const query = url.searchParams
  const version = query.get("car-version") ?? accepted?.params.get("version") ?? "1"
  if (version !== "1") return { kind: "refused", status: 400, message: `unsupported CAR version: ${version}` }
  const order = query.get("car-order") ?? accepted?.params.get("order") ?? "dfs"
  if (order !== "dfs" && order !== "unk") {
    return { kind: "refused", status: 400, message: `unsupported CAR block order: ${order}` }
  }
  const dups = query.get("car-dups") ?? accepted?.params.get("dups") ?? "n"
  if (dups !== "y" && dups !== "n")
    return { kind: "refused", status: 400, message: `car-dups must be y or n, got ${dups}` }
  const rawBytes = query.get("entity-bytes")
  const entityBytes = rawBytes === null ? undefined : parseEntityBytes(rawBytes)
  if (entityBytes !== undefined && "kind" in entityBytes) return entityBytes
  const scope = query.get("dag-scope") ?? (entityBytes === undefined ? "all" : "entity")
  if (scope !== "all" && scope !== "entity" && scope !== "block") {
    return { kind: "refused", status: 400, message: `dag-scope must be all, entity or block, got ${scope}` }
  }
  return { duplicates: dups === "y", scope, entityBytes }
}

/** The format a request asks for: `?format=` wins over `Accept`; anything else is deserialized. */
export const negotiateFormat = (url: URL, accept: string | null): Format | Refusal => {
  const format = url.searchParams.get("format")
  let type: string | undefined
  let accepted: MediaRange | undefined
  if (format !== null && format !== "") {
    type = formatNames[format]
    if (type === undefined) return { kind: "refused", status: 400, message: `unsupported format: ${format}` }
    accepted = parseAccept(accept).find((range) => range.type === type)
  } else {
    accepted = parseAccept(accept).find((range) => Object.values(MediaTypes).includes(range.type as never))
    type = accepted?.type
  }
  if (type === MediaTypes.raw) return { kind: "raw" }
  if (type === MediaTypes.ipnsRecord) return { kind: "ipns-record" }
  if (type === MediaTypes.car) {
    const options = carOptions(url, accepted)
    return "kind" in options ? options : { kind: "car", options }
  }
  return { kind: "deserialized" }
}

/** `entity-bytes=from:to`: inclusive offsets, negative from the end, `*` for the end. */
export interface EntityBytes {
  readonly from: number
  readonly to: number | "*"
}

export const parseEntityBytes = (text: string): EntityBytes | Refusal => {
  const match = /^(-?\d+):(-?\d+|\*)$/.exec(text)
  const refuse: Refusal = { kind: "refused", status: 400, message: `invalid entity-bytes: ${text}` }
  if (match === null) return refuse
  const from = Number(match[1])
  const to = match[2] === "*" ? "*" : Number(match[2])
  if (!Number.isSafeInteger(from) || (to !== "*" && !Number.isSafeInteger(to))) return refuse
  // A non-negative `to` before a non-negative `from` can never be satisfied.
  if (to !== "*" && from >= 0 && to >= 0 && to < from) return refuse
  return { from, to }
}

/**
 * `[start, end)` of an entity of `size` bytes for `entity-bytes`, clipped to the entity;
 * `undefined` when nothing of it is left (the CAR then carries the root block alone).
 */
export const entityRange = (bytes: EntityBytes, size: number): { start: number; end: number } | undefined => {
  const start = bytes.from < 0 ? Math.max(0, size + bytes.from) : bytes.from
  const last = bytes.to === "*" ? size - 1 : bytes.to < 0 ? size + bytes.to : bytes.to
  const end = Math.min(size, last + 1)
  return start < end ? { start, end } : undefined
}

/** An HTTP `Range` on an entity of `size` bytes. */
export type RangeRequest =
  | { readonly kind: "whole" }
  | { readonly kind: "part"; readonly start: number; readonly end: number }
  | { readonly kind: "unsatisfiable" }

/**
 * A single `bytes=` range (`a-b`, `a-`, `-n`) as `[start, end)`. Several ranges, other units or a
 * malformed header are answered with the whole entity, which RFC 9110 allows.
 */
export const parseRange = (header: string | null, size: number): RangeRequest => {
  if (header === null) return { kind: "whole" }
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header)
  if (match === null || (match[1] === "" && match[2] === "")) return { kind: "whole" }
  if (match[1] === "") {
    const suffix = Number(match[2])
    if (suffix === 0) return { kind: "unsatisfiable" }
    return { kind: "part", start: Math.max(0, size - suffix), end: size }
  }
  const start = Number(match[1])
  const last = match[2] === "" ? size - 1 : Number(match[2])
  if (match[2] !== "" && last < start) return { kind: "whole" }
  if (start >= size) return { kind: "unsatisfiable" }
  return { kind: "part", start, end: Math.min(size, last + 1) }
}
