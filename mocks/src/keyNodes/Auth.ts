/**
 * Who is calling a key node.
 *
 * The encryption host issues one sign-in message per address
 * (`Please sign this message to prove you are owner of this account: <uuid>`); only the latest
 * one counts, and it expires (`messageTtlSeconds`, 10 minutes by default, on the network's
 * clock). The messages are asked for without authentication, so they are bounded: one pending
 * message per address (a new one replaces the old), expired ones swept as new ones are issued,
 * and at most `maxPendingMessages` (10 000 by default) pending at once, the oldest dropped first.
 * Refresh tokens past their lifetime are swept the same way. A caller proves an address by either
 *
 * - a raw signature of that message (EIP-191 `personal_sign` for EVM addresses; ed25519, base58 or
 *   hex encoded, for 44-character base58 Solana keys). Each node accepts a given message's
 *   signature **once**: kavach sends the same signature to all 5 nodes in one call, so the nonce
 *   is spent per node, and a second call needs a fresh message or a JWT — which is why the SDK
 *   demands a JWT for multi-file uploads;
 * - or a JWT from `POST /api/message/get-jwt`: `jwt:` + an HS256 JWS signed with a secret of this
 *   network, `sub` = the lower-cased address, `exp` from the injectable clock. Exchanging a
 *   signature for a JWT retires the message, so the signature cannot be replayed afterwards.
 *   Refresh tokens (`r:` + 32 random bytes) are single-use and rotate on every refresh.
 *
 * @since 0.1.0
 */
import { ed25519 } from "@noble/curves/ed25519.js"
import { errors, jwtVerify, SignJWT } from "jose"
import { base58btc } from "multiformats/bases/base58"
import { base64url as base64urlCodec } from "multiformats/bases/base64"
import { hexToBytes, verifyMessage } from "viem"

/** The text every auth message starts with; the nonce (a UUID) follows. */
export const authMessagePrefix = "Please sign this message to prove you are owner of this account: "

const evmAddressPattern = /^0x[0-9a-fA-F]{40}$/
const base58KeyPattern = /^[1-9A-HJ-NP-Za-km-z]{44}$/

/**
 * The form the nodes key accounts by: EVM addresses lower-cased, Solana keys as given;
 * `undefined` for anything else.
 */
export const normalizeAddress = (input: unknown): string | undefined => {
  if (typeof input !== "string") return undefined
  if (evmAddressPattern.test(input)) return input.toLowerCase()
  if (base58KeyPattern.test(input)) return input
  return undefined
}

export interface IssuedMessage {
  readonly nonce: string
  readonly message: string
  /** Milliseconds on the network's clock. */
  readonly issuedAt: number
}

export interface TokenPair {
  /** `jwt:<JWS>` */
  readonly token: string
  /** `r:<random>` */
  readonly refreshToken: string
}

export interface RefreshRecord {
  readonly address: string
  /** Milliseconds on the network's clock. */
  readonly expiresAt: number
}

/** State shared by the whole encryption host (not per node): messages and refresh tokens. */
export interface AuthState {
  /** The latest message issued to each address. */
  readonly messages: Map<string, IssuedMessage>
  readonly refreshTokens: Map<string, RefreshRecord>
}

/** Why a bearer token was refused. */
export type AuthFailure = "invalid" | "expired"

export type AuthOutcome =
  | { readonly ok: true; readonly via: "jwt" | "signature" }
  | { readonly ok: false; readonly reason: AuthFailure }

export interface AuthOptions {
  readonly now: () => number
  readonly jwtTtlSeconds: number
  readonly refreshTtlSeconds: number
  /** How long an issued message can be signed and used. */
  readonly messageTtlSeconds: number
  /** Messages pending at once (over every address); past it the oldest is dropped. */
  readonly maxPendingMessages: number
}

export interface Auth {
  readonly state: AuthState
  /** Issues a fresh message for a normalized address, replacing any earlier one; sweeps expired ones. */
  readonly issueMessage: (address: string) => IssuedMessage
  /** Exchanges a signature of the current message for a token pair, retiring the message. */
  readonly exchangeSignature: (address: string, signature: unknown, chain: string) => Promise<TokenPair | undefined>
  /** Exchanges a live refresh token of this address for a new pair; the old one is spent. */
  readonly refresh: (address: string, refreshToken: unknown) => Promise<TokenPair | undefined>
  /**
   * Checks an `Authorization` header for `address` on one node. `spent` is that node's set of
   * used message nonces: a raw signature is accepted once per node.
   */
  readonly authenticate: (address: string, authorization: string | null, spent: Set<string>) => Promise<AuthOutcome>
  /** Forgets every message and refresh token and rotates the signing secret (old JWTs die). */
  readonly reset: () => void
}

const randomBytes = (n: number) => crypto.getRandomValues(new Uint8Array(n))

// No `Buffer`: the key nodes also run in browsers (Storybook, msw's worker).
const base64url = (bytes: Uint8Array) => base64urlCodec.baseEncode(bytes)

const decodeSignatureBytes = (signature: string): Uint8Array | undefined => {
  try {
    if (/^(0x)?[0-9a-fA-F]{128}$/.test(signature)) return hexToBytes(`0x${signature.replace(/^0x/, "")}`)
    return base58btc.baseDecode(signature)
  } catch {
    return undefined
  }
}

/** Whether `signature` signs `message` for `address` (EVM or Solana). Never throws. */
export const verifySignature = async (address: string, message: string, signature: unknown): Promise<boolean> => {
  if (typeof signature !== "string" || signature === "") return false
  try {
    if (evmAddressPattern.test(address)) {
      if (!/^0x[0-9a-fA-F]+$/.test(signature)) return false
      return await verifyMessage({ address: address as `0x${string}`, message, signature: signature as `0x${string}` })
    }
    const publicKey = base58btc.baseDecode(address)
    const bytes = decodeSignatureBytes(signature)
    if (publicKey.length !== 32 || bytes === undefined || bytes.length !== 64) return false
    return ed25519.verify(bytes, new TextEncoder().encode(message), publicKey)
  } catch {
    return false
  }
}

/** What the functions below share: the state, the clock and TTLs, and the current signing secret. */
interface Issuer {
  readonly state: AuthState
  readonly options: AuthOptions
  secret: Uint8Array
}

/**
 * Deletes the entries at the front of `map` (the oldest: each table is kept in the order its
 * entries were issued, all with one lifetime) while they have expired.
 */
const sweepExpired = <V>(map: Map<string, V>, expired: (value: V) => boolean) => {
  for (const [key, value] of map) {
    if (!expired(value)) return
    map.delete(key)
  }
}

const messageExpired = ({ options }: Issuer, issued: IssuedMessage) =>
  issued.issuedAt + options.messageTtlSeconds * 1000 <= options.now()

/** The address's pending message, if it has not expired (an expired one is dropped). */
const pendingMessage = (issuer: Issuer, address: string): IssuedMessage | undefined => {
  const issued = issuer.state.messages.get(address)
  if (issued === undefined || !messageExpired(issuer, issued)) return issued
  issuer.state.messages.delete(address)
  return undefined
}

const issueMessage = (issuer: Issuer, address: string): IssuedMessage => {
  const { state, options } = issuer
  sweepExpired(state.messages, (issued) => messageExpired(issuer, issued))
  // Deleted first so the map stays in issue order: its front is always the oldest message.
  state.messages.delete(address)
  for (const oldest of state.messages.keys()) {
    if (state.messages.size < options.maxPendingMessages) break
    state.messages.delete(oldest)
  }
  const nonce = crypto.randomUUID()
  const issued = { nonce, message: `${authMessagePrefix}${nonce}`, issuedAt: options.now() }
  state.messages.set(address, issued)
  return issued
}

const issuePair = async (issuer: Issuer, address: string, chain: string): Promise<TokenPair> => {
  const { options, state } = issuer
  const nowSeconds = Math.floor(options.now() / 1000)
  const jws = await new SignJWT({ chain })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(address)
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + options.jwtTtlSeconds)
    .setJti(crypto.randomUUID())
    .sign(issuer.secret)
  const refreshToken = `r:${base64url(randomBytes(32))}`
  sweepExpired(state.refreshTokens, (record) => record.expiresAt <= options.now())
  state.refreshTokens.set(refreshToken, { address, expiresAt: options.now() + options.refreshTtlSeconds * 1000 })
  return { token: `jwt:${jws}`, refreshToken }
}

const exchangeSignature = async (issuer: Issuer, address: string, signature: unknown, chain: string) => {
  const { messages } = issuer.state
  const issued = pendingMessage(issuer, address)
  if (issued === undefined || !(await verifySignature(address, issued.message, signature))) return undefined
  // The message is spent: the signature cannot also be replayed as a bearer token.
  if (messages.get(address) === issued) messages.delete(address)
  return issuePair(issuer, address, chain)
}

const refresh = async (issuer: Issuer, address: string, refreshToken: unknown) => {
  if (typeof refreshToken !== "string") return undefined
  const { refreshTokens } = issuer.state
  const record = refreshTokens.get(refreshToken)
  if (record === undefined || record.address !== address) return undefined
  refreshTokens.delete(refreshToken)
  if (record.expiresAt <= issuer.options.now()) return undefined
  return issuePair(issuer, address, "ALL")
}

const verifyJwt = async (issuer: Issuer, address: string, jws: string): Promise<AuthOutcome> => {
  try {
    await jwtVerify(jws, issuer.secret, {
      algorithms: ["HS256"],
      subject: address,
      currentDate: new Date(issuer.options.now())
    })
    return { ok: true, via: "jwt" }
  } catch (error) {
    return { ok: false, reason: error instanceof errors.JWTExpired ? "expired" : "invalid" }
  }
}

const authenticate = async (
  issuer: Issuer,
  address: string,
  authorization: string | null,
  spent: Set<string>
): Promise<AuthOutcome> => {
  const match = /^Bearer (.+)$/.exec(authorization ?? "")
  const token = match?.[1]?.trim()
  if (token === undefined || token === "") return { ok: false, reason: "invalid" }
  if (token.startsWith("jwt:")) return verifyJwt(issuer, address, token.slice(4))
  const issued = pendingMessage(issuer, address)
  if (issued === undefined) return { ok: false, reason: "invalid" }
  const key = `${address}:${issued.nonce}`
  if (spent.has(key) || !(await verifySignature(address, issued.message, token))) {
    return { ok: false, reason: "invalid" }
  }
  // Checked again after the await: two concurrent calls with one signature get one success.
  if (spent.has(key)) return { ok: false, reason: "invalid" }
  spent.add(key)
  return { ok: true, via: "signature" }
}

export const makeAuth = (options: AuthOptions): Auth => {
  const issuer: Issuer = { state: { messages: new Map(), refreshTokens: new Map() }, options, secret: randomBytes(32) }
  return {
    state: issuer.state,
    issueMessage: (address) => issueMessage(issuer, address),
    exchangeSignature: (address, signature, chain) => exchangeSignature(issuer, address, signature, chain),
    refresh: (address, refreshToken) => refresh(issuer, address, refreshToken),
    authenticate: (address, authorization, spent) => authenticate(issuer, address, authorization, spent),
    reset: () => {
      issuer.state.messages.clear()
      issuer.state.refreshTokens.clear()
      issuer.secret = randomBytes(32)
    }
  }
}
