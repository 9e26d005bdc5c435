/**
 * The plan of a download, made once per call whatever its mode (`stream`, `bytes`, `retrieve`,
 * `toFile`, resumed or not, decrypting or not): what it reads (`target`: a CID, a path inside it,
 * a range), from where (`lanes`: the call's `sources`, else the configuration's, else the
 * download's own gateway alone, a plan of one lane) and how the lanes share it (`strategy`,
 * `stall`, `split`). One engine (`Engine.ts`) runs every plan.
 *
 * Every option is honoured or refused here: a combination the plan cannot honour is
 * `InvalidArgument`, with the reason, before any request (`refusalOf`).
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { InvalidArgument } from "../errors/Input.ts"
import type { Hosts } from "../internal/Hosts.ts"
import { type Cid, decodeCid } from "../schema/Cid.ts"
import type { Verification } from "../verify/Trustless.ts"
import type { Target } from "../verify/Walk.ts"
import type { ToFileOptions } from "./Models.ts"
import { type Lane, laneOf } from "./Open.ts"
import { expandSources, type Strategy, sourceNames } from "./SourceOptions.ts"

/** How `split` cuts the content and how much it fetches ahead. */
export interface SplitShape {
  /** Bytes asked of a source in one request. */
  readonly rangeSize: number
  /** Requests a source may have in flight at once. */
  readonly requestsPerSource: number
  /** Verified bytes that may wait for the caller, at most. */
  readonly window: number
}

export const defaultSplit: SplitShape = { rangeSize: 4 * 1024 * 1024, requestsPerSource: 2, window: 16 * 1024 * 1024 }

/**
 * What a download reads from where. A folder's download would give it a tree of targets; the
 * lanes, the strategy and the engine stay as they are.
 */
export interface Plan {
  /** The CID asked for, as given. */
  readonly cid: string
  /** What is read: the stored bytes of the file at `path`, `range` of them when given. */
  readonly target: Target
  /** The sources, in order; one for the download's own gateway. */
  readonly lanes: ReadonlyArray<Lane>
  readonly strategy: Strategy
  readonly stall: Duration.Duration
  /** How `split` cuts the content (read by that strategy only). */
  readonly split: SplitShape
  readonly verification: Verification
  /**
   * Whether the lanes come from a `sources` list (the call's or the configuration's): the report
   * then names each source, and a failure of every one is `AllSourcesFailed`. A plan of the own
   * gateway fails as that gateway did.
   */
  readonly listed: boolean
}

/** The public operations, whose names a refusal carries. */
export type Operation = "stream" | "bytes" | "retrieve" | "toFile" | "toDirectory" | "list"

/** What a plan is made from. */
export interface PlanRequest {
  readonly hosts: Hosts
  readonly cid: Cid
  readonly operation: Operation
  readonly options: ToFileOptions | undefined
}

/** The download's own gateway, as a base URL: the caller's, else Walrus' for Walrus content, else IPFS'. */
export const gatewayOf = (hosts: Hosts, options: ToFileOptions | undefined): string =>
  options?.gateway ??
  (options?.storageType === "walrus" ? hosts.config.hosts.walrusGateway : hosts.config.hosts.gateway)

/** `target` from `position` bytes into it on. */
export const targetFrom = (target: Target, position: number): Target => {
  if (position === 0) return target
  const offset = (target.range?.offset ?? 0) + position
  const length = target.range?.length === undefined ? undefined : target.range.length - position
  return { ...target, range: { offset, length } }
}

/** The plan going on after the first `position` bytes of its target (a resumed download's). */
export const fromByte = (plan: Plan, position: number): Plan => ({ ...plan, target: targetFrom(plan.target, position) })

/** A download's path inside its CID, as segments. */
export const segmentsOf = (path: string | undefined) => (path ?? "").split("/").filter((segment) => segment !== "")

/** The `sources` list that applies: the call's, else the configuration's; `undefined` for the own gateway alone. */
const listOf = (hosts: Hosts, options: ToFileOptions | undefined) => {
  const sources = options?.sources ?? hosts.config.downloads.sources
  return sources === undefined || sources.length === 0 ? undefined : sources
}

/** Two spellings of one base URL (trailing slashes) are one gateway. */
const sameGateway = (a: string, b: string) => a.replace(/\/+$/, "") === b.replace(/\/+$/, "")

const splitOptions = ["rangeSize", "requestsPerSource", "window"] as const

/**
 * Why the options cannot be honoured together in `operation`; `undefined` when they can.
 * `gateways` are the plan's base URLs, `strategy` and `verification` the ones that apply.
 */
const refusalOf = (
  { operation, options, hosts }: PlanRequest,
  gateways: ReadonlyArray<string>,
  strategy: Strategy,
  verification: Verification
): string | undefined => {
  if (options === undefined) return undefined
  if (operation === "stream" && options.decrypt !== undefined) {
    return "stream gives the bytes as stored; decrypt with bytes, retrieve or toFile"
  }
  if (options.resume === true && operation !== "toFile") return "resume is an option of toFile only"
  if (options.resume === true && options.range !== undefined && options.decrypt === undefined) {
    return "resume goes on with a whole file: a range of a file that is not decrypted is downloaded anew; leave out resume or range"
  }
  if (!gateways.some((gateway) => sameGateway(gateway, gatewayOf(hosts, options)))) {
    const own = options.gateway !== undefined ? "gateway" : options.storageType === "walrus" ? "storageType" : undefined
    if (own !== undefined) {
      return `${own} chooses the download's own gateway, which the sources (${gateways.join(", ")}) do not name: add "${sourceNames.gateway}" to them`
    }
  }
  if (verification !== "required" && gateways.length > 1) {
    return `verification "${verification}" reads one gateway's bytes as they come; with several sources every byte is verified: leave out verification, or name one source`
  }
  if (verification !== "required" && strategy === "split") {
    return `verification "${verification}" reads one gateway's bytes as they come, which strategy "split" cannot cut into verified ranges`
  }
  if (verification === "off" && options.trustless !== undefined) {
    return `trustless chooses how verified blocks are asked for, and verification "off" verifies none`
  }
  const shaping = splitOptions.find((name) => options[name] !== undefined)
  if (shaping !== undefined && strategy !== "split") return `${shaping} shapes strategy "split", not "${strategy}"`
  return undefined
}

/**
 * The plan of a download of `cid` with `options`, reading `range` of its stored bytes (none when
 * decrypting: the tag at the end covers them all); `InvalidArgument` for options it cannot honour.
 */
export const planOf = (request: PlanRequest): Effect.Effect<Plan, InvalidArgument> => {
  const { hosts, cid, options } = request
  const defaults = hosts.config.downloads
  const own = gatewayOf(hosts, options)
  const list = listOf(hosts, options)
  const gateways = list === undefined ? [own] : expandSources(list, own)
  const strategy = options?.strategy ?? defaults.strategy
  const verification = options?.verification ?? "required"
  const refusal = refusalOf(request, gateways, strategy, verification)
  if (refusal !== undefined) {
    return Effect.fail(new InvalidArgument({ method: `Download.${request.operation}`, detail: refusal }))
  }
  const reading = {
    verification,
    trustless: options?.trustless ?? "car",
    freesReads: strategy !== "split"
  }
  const lanes = gateways.map((gateway) =>
    laneOf(gateway, hosts.gatewayAt(gateway), {
      ...reading,
      walrus: sameGateway(gateway, own) && options?.storageType === "walrus"
    })
  )
  const range = options?.decrypt === undefined ? options?.range : undefined
  return Effect.succeed({
    cid,
    target: { root: decodeCid(cid), path: segmentsOf(options?.path), ...(range === undefined ? {} : { range }) },
    lanes,
    strategy,
    stall: Duration.fromInputUnsafe(options?.stallTimeout ?? defaults.stallTimeout),
    split: {
      rangeSize: options?.rangeSize ?? defaultSplit.rangeSize,
      requestsPerSource: options?.requestsPerSource ?? defaultSplit.requestsPerSource,
      window: options?.window ?? defaultSplit.window
    },
    verification,
    listed: list !== undefined
  })
}
