/**
 * A gateway's faults written as text, as `npm run serve -- --gateway …` takes them: comma-separated
 * items, each one fault of `Faults.ts` on the whole gateway.
 *
 * | item | fault |
 * |---|---|
 * | `rate=SIZE` | bodies at most SIZE bytes a second, all answers together (`rate`) |
 * | `slow=MS` | every answer MS milliseconds late (`slow`) |
 * | `stall-after=SIZE` | every body stops after SIZE bytes and hangs (`stall`) |
 * | `lie` or `lie=LIE` | every answer altered (`flip-byte` unless another gateway lie is named) |
 * | `status=CODE` | every request answered CODE, e.g. 429 (`status`) |
 * | `down` | every connection cut (`down`) |
 * | `honest` | no fault |
 *
 * SIZE is a whole number of bytes or a number with `KiB`, `MiB` or `GiB` (`10MiB`, `1.5MiB`). At
 * most one of `stall-after`, `lie`, `status` and `down`: only one of them can decide an answer.
 *
 * @since 0.1.0
 */
import type { FaultKind, Faults } from "../faults/Faults.ts"
import { type GatewayLie, GatewayLies } from "../faults/Lies.ts"

/** What each item may be, for the messages that refuse one. */
const itemsHelp = "rate=SIZE, slow=MS, stall-after=SIZE, lie[=LIE], status=CODE, down or honest"

const units: Readonly<Record<string, number>> = { "": 1, B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 }

/** Bytes written as `10MiB`, `512KiB`, `1.5MiB` or `1048576`. */
const parseSize = (item: string, text: string): number => {
  const match = /^(\d+(?:\.\d+)?)(B|KiB|MiB|GiB)?$/.exec(text)
  const bytes = match === null ? Number.NaN : Math.round(Number(match[1]) * units[match[2] ?? ""]!)
  if (!Number.isSafeInteger(bytes)) {
    throw new RangeError(`${item} needs a size in bytes (e.g. 1048576, 512KiB, 10MiB), got ${JSON.stringify(text)}`)
  }
  return bytes
}

const parseWhole = (item: string, text: string, minimum: number, maximum: number): number => {
  const value = Number(text)
  if (!/^\d+$/.test(text) || value < minimum || value > maximum) {
    throw new RangeError(`${item} needs a whole number from ${minimum} to ${maximum}, got ${JSON.stringify(text)}`)
  }
  return value
}

/** One item as a fault; `undefined` for `honest`. */
const parseItem = (item: string): FaultKind | undefined => {
  const [name = "", ...rest] = item.split("=")
  const value = rest.length === 0 ? undefined : rest.join("=")
  const needs = (what: string) => {
    if (value === undefined || value === "") throw new RangeError(`${name} needs a value: ${name}=${what}`)
    return value
  }
  switch (name) {
    case "rate": {
      const bytesPerSecond = parseSize(name, needs("SIZE"))
      if (bytesPerSecond === 0) throw new RangeError("rate needs more than 0 bytes a second")
      return { kind: "rate", bytesPerSecond }
    }
    case "slow":
      return { kind: "slow", ms: parseWhole(name, needs("MS"), 0, 3_600_000) }
    case "stall-after":
      return { kind: "stall", afterBytes: parseSize(name, needs("SIZE")) }
    case "status":
      return { kind: "status", status: parseWhole(name, needs("CODE"), 100, 599) }
    case "lie": {
      const lie = value ?? "flip-byte"
      if (!GatewayLies.includes(lie as GatewayLie)) {
        throw new RangeError(`lie must be one of ${GatewayLies.join(", ")}, got ${JSON.stringify(lie)}`)
      }
      return { kind: "lie", lie: lie as GatewayLie }
    }
    case "down":
    case "honest":
      if (value !== undefined) throw new RangeError(`${name} takes no value, got ${JSON.stringify(item)}`)
      return name === "down" ? { kind: "down" } : undefined
    default:
      throw new RangeError(`unknown fault ${JSON.stringify(item)} (each item is ${itemsHelp})`)
  }
}

/** The faults of `text` (e.g. `rate=10MiB,lie`), checked; none for `honest`. */
export const parseGatewayFaults = (text: string): ReadonlyArray<FaultKind> => {
  const items = text.split(",").map((item) => item.trim())
  if (items.some((item) => item === "")) throw new RangeError(`an empty fault in ${JSON.stringify(text)}`)
  const faults = items.flatMap((item) => parseItem(item) ?? [])
  const deciding = faults.filter((fault) => fault.kind !== "rate" && fault.kind !== "slow")
  if (deciding.length > 1) {
    throw new RangeError(`at most one of stall-after, lie, status and down, got ${JSON.stringify(text)}`)
  }
  return faults
}

const sizeText = (bytes: number): string => {
  for (const unit of ["GiB", "MiB", "KiB"] as const) {
    if (bytes >= units[unit]! && bytes % units[unit]! === 0) return `${bytes / units[unit]!}${unit}`
  }
  return String(bytes)
}

/** A fault as its item (`rate=10MiB`), the way `parseGatewayFaults` reads it back. */
export const gatewayFaultText = (fault: FaultKind): string => {
  switch (fault.kind) {
    case "rate":
      return `rate=${sizeText(fault.bytesPerSecond)}`
    case "slow":
      return `slow=${fault.ms}`
    case "stall":
      return `stall-after=${sizeText(fault.afterBytes)}`
    case "status":
      return `status=${fault.status}`
    case "lie":
      return `lie=${fault.lie}`
    case "down":
      return "down"
    case "inconsistent":
      return "inconsistent"
  }
}

/** Arms `kinds` on every request of the gateway whose registry is `faults`. */
export const armGatewayFaults = (faults: Faults, kinds: ReadonlyArray<FaultKind>): void => {
  for (const kind of kinds) faults.inject({ host: "gateway" }, kind)
}
