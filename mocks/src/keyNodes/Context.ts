/**
 * What every key-node route shares, and the steps every per-node call goes through: fault
 * injection first (a `down` or `status` fault answers before any state is read or changed),
 * then the node id, the JSON body, the address and the bearer token — in that order, so the
 * first problem decides the answer.
 *
 * @since 0.1.0
 */
import type { Faults } from "../faults/index.ts"
import { guard, type RouteErrorLog } from "../http/Guard.ts"
import type { Auth } from "./Auth.ts"
import { normalizeAddress } from "./Auth.ts"
import type { ConditionEnvironment } from "./Conditions.ts"
import { type NodeId, type NodeState, parseNodeId } from "./NodeState.ts"
import { badRequest, internalError, invalidAddress, invalidSignature, jwtExpired, notFound } from "./Replies.ts"

export interface KeyNodeContext {
  /** Base URL, no trailing slash. */
  readonly host: string
  readonly nodes: ReadonlyArray<NodeState>
  readonly auth: Auth
  readonly now: () => number
  readonly conditions: ConditionEnvironment
  readonly faults: Faults | undefined
  /** Who hears of a route that threw; nobody when absent. */
  readonly log: RouteErrorLog | undefined
}

/** A per-node call that passed the common checks. */
export interface NodeCall {
  readonly node: NodeState
  readonly body: Readonly<Record<string, unknown>>
  /** The authenticated caller, normalized. */
  readonly address: string
  readonly request: Request
}

/**
 * Runs `answer` under the fault registry (when there is one) for this node or host-level route,
 * guarded: a route that throws answers the key nodes' JSON 500.
 */
export const withFaults = (
  context: KeyNodeContext,
  node: NodeId | undefined,
  request: Request,
  answer: () => Response | Promise<Response>
): Promise<Response> => {
  const guarded = () =>
    guard({ name: `key node ${node ?? "host"}`, failed: internalError, log: context.log }, answer)({ request })
  return context.faults === undefined
    ? guarded()
    : context.faults.handle({ host: "encryption", node, request }, guarded)
}

/** The request's JSON body when it is an object; `undefined` otherwise. */
export const readJsonObject = async (request: Request): Promise<Record<string, unknown> | undefined> => {
  try {
    const body: unknown = await request.json()
    return body !== null && typeof body === "object" && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/** Node id, body, address and bearer token of a per-node call; a `Response` when one of them fails. */
export const admit = async (
  context: KeyNodeContext,
  segment: unknown,
  request: Request
): Promise<NodeCall | Response> => {
  const id = parseNodeId(segment)
  const node = id === undefined ? undefined : context.nodes[id - 1]
  if (node === undefined) return notFound()
  const body = await readJsonObject(request)
  if (body === undefined) return badRequest("Request body must be a JSON object")
  const address = normalizeAddress(body.address)
  if (address === undefined) return invalidAddress()
  const outcome = await context.auth.authenticate(address, request.headers.get("authorization"), node.spentNonces)
  if (!outcome.ok) return outcome.reason === "expired" ? jwtExpired() : invalidSignature()
  return { node, body, address, request }
}

/** An address list (`sharedTo`, `shareTo`, `revokeTo`): one address or an array, normalized; `undefined` if any is invalid. */
export const parseAddressList = (input: unknown): Array<string> | undefined => {
  const list = Array.isArray(input) ? input : typeof input === "string" ? [input] : undefined
  if (list === undefined) return undefined
  const addresses: Array<string> = []
  for (const item of list) {
    const address = normalizeAddress(item)
    if (address === undefined) return undefined
    if (!addresses.includes(address)) addresses.push(address)
  }
  return addresses
}

/** What a per-node route does once the common checks passed. */
export type Step = (call: NodeCall) => Response | Promise<Response>

/** A per-node route resolver: faults for node `{n}`, then `admit`, then `step`. */
export const nodeRoute =
  (context: KeyNodeContext, step: Step) =>
  ({ request, params }: { readonly request: Request; readonly params: Readonly<Record<string, unknown>> }) =>
    withFaults(context, parseNodeId(params.node), request, async () => {
      const call = await admit(context, params.node, request)
      return call instanceof Response ? call : step(call)
    })
