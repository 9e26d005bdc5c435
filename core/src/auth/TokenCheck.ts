/**
 * Checking a key-node token before anything is staked on it: an encrypted upload checks its
 * token before the first byte goes to the upload node, so a refused token cannot leave a stored,
 * billed file whose key was never saved.
 *
 * The cheapest check the key-node protocol allows:
 *
 * 1. locally, without a request: a JWT must be three base64url segments with JSON claims, whose
 *    `sub` (when present) is this address; a raw signature must be shaped as one (EIP-191 `0x` +
 *    65 bytes, or 64 ed25519 bytes for a Solana key). Anything else is `Invalid Signature`;
 * 2. for a JWT, one authenticated read on node 1: `POST /api/retrieveSharedKey/1` for a CID
 *    nobody stores. Every per-node route checks the bearer token before its own rules, so a 401
 *    is the token refused and any other answer (`cid not found`, `Access Denied`, a shard) is the
 *    token accepted. Nothing is written. A 401 `jwt expired` stays the node's `NodeError` (its
 *    own text); any other 401 is `Invalid Signature`.
 *
 * Expiry is left to the node's clock, not judged by the `exp` claim here: the two clocks differ
 * (a served network's clock can be moved days on), and a client ahead of the node would refuse a
 * token the node takes.
 *
 * A raw signature is not sent: each node accepts one once, and the check would spend it.
 * A token from `Auth.token` has a session (`KeyNodes.sessions`): the local checks are skipped (the
 * cache keeps it fresh by its `exp`), and a node that refuses it renews it (refresh, then a new
 * sign-in) within the same call.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { InvalidSignature, type NodeError } from "../Errors.ts"
import { reveal } from "../internal/http.ts"
import type { KeyNodes } from "../KeyNodes.ts"
import { callOf, Routes } from "../routes/Routes.ts"
import { parsePublicKey } from "../schema/Address.ts"
import type { TokenCheckFailure, TokenCheckInput } from "./Models.ts"
import { jwtClaims } from "./TokenCache.ts"

/**
 * The CID the check asks node 1 about: CIDv1, raw, sha-256 of the UTF-8 text
 * `lighthouse-effect: key-node token check`. Nobody stores under it; if someone did, the answer
 * would still be past the token check.
 */
export const probeCid = "bafkreihlbkipkfiic4rojzozq6jcldrhp2zu2v37fcbr45zdymszvwgbey"

const probeNode = 1

const evmSignature = /^0x[0-9a-fA-F]{130}$/
const ed25519Signature = /^(?:(?:0x)?[0-9a-fA-F]{128}|[1-9A-HJ-NP-Za-km-z]{85,88})$/

const refused = (reason: string) => new InvalidSignature({ cause: reason })

/** The local half of the check; `"jwt"` when the node is to be asked, `"signature"` when it is not. */
const checkLocally = Effect.fnUntraced(function* (address: string, token: string) {
  if (address.startsWith("0x") ? evmSignature.test(token) : ed25519Signature.test(token)) return "signature" as const
  const claims = jwtClaims(token)
  if (claims === undefined) return yield* refused("the token is neither a key-node JWT (jwt:<JWS>) nor a signature")
  if (typeof claims.sub === "string" && claims.sub.toLowerCase() !== address.toLowerCase()) {
    return yield* refused(`the JWT was issued to ${claims.sub}, not to ${address}`)
  }
  return "jwt" as const
})

/** A node's refusal of the check: a 401 refuses the token; an answer given past the token check accepts it. */
const verdict = (error: NodeError): Effect.Effect<void, TokenCheckFailure> => {
  if (error.statusCode === 401) {
    return Effect.fail(/jwt expired/i.test(error.nodeMessage) ? error : new InvalidSignature({ cause: error }))
  }
  // Unreachable, timed out or failing (transport, 404, 5xx): not known to be good, so nothing is sent.
  if (error.statusCode === 0 || error.statusCode === 404 || error.statusCode >= 500) return Effect.fail(error)
  return Effect.void
}

/** The node's word on the token. */
const askNode = (nodes: KeyNodes["Service"], address: string, token: TokenCheckInput["token"]) =>
  nodes
    .call(probeNode, {
      ...callOf(Routes.keyNodes.retrieveShard, { node: probeNode }),
      body: { address, cid: probeCid, dynamicData: {} },
      token
    })
    .pipe(Effect.asVoid, Effect.catch(verdict))

export const checkToken = Effect.fn("Auth.checkToken")(function* (nodes: KeyNodes["Service"], input: TokenCheckInput) {
  const address = yield* parsePublicKey(input.address)
  const inSession = nodes.sessions.of(input.token) !== undefined
  if (!inSession && (yield* checkLocally(address, reveal(input.token))) === "signature") return
  yield* askNode(nodes, address, input.token)
})
