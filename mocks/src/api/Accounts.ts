/**
 * Accounts of the mock API: one per wallet address (lower-cased), with its API keys, its storage
 * quota and usage, and the sign-in message it was last issued.
 *
 * API keys are only handed out for a valid EIP-191 signature of the message this API issued to
 * that address (`issueMessage` → `redeemSignature`); a message can be redeemed once. The same
 * signature scheme makes the one-time upload token `address$signature` the provider accepts.
 */

import { Address } from "lighthouse-effect"
import { recoverMessageAddress } from "viem"

/** Bytes. The provider's documented example account has 1 GiB. */
export const DefaultDataLimit = 1024 * 1024 * 1024

export interface Account {
  /** Lower-cased `0x…` address. */
  readonly address: string
  readonly apiKeys: Set<string>
  dataLimit: number
  dataUsed: number
  dataLimitPermanent: number
  dataUsedPermanent: number
  walrusDataLimit: number
  walrusDataUsed: number
  readonly createdAt: number
}

export interface QuotaUpdate {
  readonly dataLimit?: number
  readonly dataUsed?: number
  readonly dataLimitPermanent?: number
  readonly dataUsedPermanent?: number
  readonly walrusDataLimit?: number
  readonly walrusDataUsed?: number
}

export class InvalidAddress extends Error {
  constructor(address: string) {
    super(`not an EVM address: ${address}`)
    this.name = "InvalidAddress"
  }
}

/** Why a signature was not accepted. */
export type SignatureRejection = "no-message" | "bad-signature"

export const normalizeAddress = (address: string): string => {
  if (!Address.isEvmAddress(address)) throw new InvalidAddress(address)
  return address.toLowerCase()
}

const nonNegative = (name: string, value: number | undefined) => {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
    throw new RangeError(`${name} must be a non-negative integer number of bytes, got ${value}`)
  }
}

export class Accounts {
  readonly #accounts = new Map<string, Account>()
  readonly #byKey = new Map<string, Account>()
  readonly #messages = new Map<string, string>()
  readonly #clock: () => number
  readonly #defaultDataLimit: number

  constructor(options: { readonly clock: () => number; readonly defaultDataLimit?: number }) {
    this.#clock = options.clock
    this.#defaultDataLimit = options.defaultDataLimit ?? DefaultDataLimit
    nonNegative("defaultDataLimit", this.#defaultDataLimit)
  }

  get(address: string): Account | undefined {
    return Address.isEvmAddress(address) ? this.#accounts.get(address.toLowerCase()) : undefined
  }

  /** The account of an address, created (empty, default quota) on first use. */
  ensure(address: string): Account {
    const key = normalizeAddress(address)
    let account = this.#accounts.get(key)
    if (account === undefined) {
      account = {
        address: key,
        apiKeys: new Set(),
        dataLimit: this.#defaultDataLimit,
        dataUsed: 0,
        dataLimitPermanent: 0,
        dataUsedPermanent: 0,
        walrusDataLimit: 0,
        walrusDataUsed: 0,
        createdAt: this.#clock()
      }
      this.#accounts.set(key, account)
    }
    return account
  }

  all(): ReadonlyArray<Account> {
    return [...this.#accounts.values()]
  }

  byApiKey(apiKey: string): Account | undefined {
    return this.#byKey.get(apiKey)
  }

  /** Issues a new API key (or registers `apiKey`) for the address. */
  addApiKey(address: string, apiKey: string = crypto.randomUUID()): string {
    const owner = this.#byKey.get(apiKey)
    if (owner !== undefined && owner.address !== normalizeAddress(address)) {
      throw new Error("that API key already belongs to another account")
    }
    const account = this.ensure(address)
    account.apiKeys.add(apiKey)
    this.#byKey.set(apiKey, account)
    return apiKey
  }

  revokeApiKey(apiKey: string): boolean {
    const account = this.#byKey.get(apiKey)
    if (account === undefined) return false
    account.apiKeys.delete(apiKey)
    return this.#byKey.delete(apiKey)
  }

  setQuota(address: string, update: QuotaUpdate): Account {
    for (const [name, value] of Object.entries(update)) nonNegative(name, value as number | undefined)
    const account = this.ensure(address)
    Object.assign(account, update)
    return account
  }

  /** Adds to the data limit (payments). */
  credit(address: string, bytes: number): Account {
    nonNegative("credit", bytes)
    const account = this.ensure(address)
    account.dataLimit += bytes
    return account
  }

  /** Issues (and remembers, replacing any earlier one) the message `address` must sign. */
  issueMessage(address: string): string {
    const key = normalizeAddress(address)
    const message = `Please prove you are the owner of this account by signing this message. Address: ${key} Nonce: ${crypto.randomUUID()}`
    this.#messages.set(key, message)
    return message
  }

  pendingMessage(address: string): string | undefined {
    return Address.isEvmAddress(address) ? this.#messages.get(address.toLowerCase()) : undefined
  }

  /**
   * Checks that `signature` is the address's EIP-191 signature of the message last issued to it,
   * and consumes that message. Returns the account, or why it was refused.
   */
  async redeemSignature(address: string, signature: string): Promise<Account | SignatureRejection> {
    const key = normalizeAddress(address)
    const message = this.#messages.get(key)
    if (message === undefined) return "no-message"
    if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return "bad-signature"
    let signer: string
    try {
      signer = await recoverMessageAddress({ message, signature: signature as `0x${string}` })
    } catch {
      return "bad-signature"
    }
    if (signer.toLowerCase() !== key) return "bad-signature"
    this.#messages.delete(key)
    return this.ensure(key)
  }

  /**
   * The account behind a bearer token: an API key, or (when `oneTime`) the one-time token
   * `address$signature` over the message last issued to that address, which it consumes.
   */
  async authenticate(token: string | undefined, options: { readonly oneTime: boolean }): Promise<Account | undefined> {
    if (token === undefined || token === "") return undefined
    const byKey = this.#byKey.get(token)
    if (byKey !== undefined) return byKey
    if (!options.oneTime) return undefined
    const match = /^(0x[0-9a-fA-F]{40})\$(0x[0-9a-fA-F]{130})$/.exec(token)
    if (match === null) return undefined
    const redeemed = await this.redeemSignature(match[1]!, match[2]!)
    return typeof redeemed === "string" ? undefined : redeemed
  }

  clear(): void {
    this.#accounts.clear()
    this.#byKey.clear()
    this.#messages.clear()
  }

  /** Every account as it is kept (its API keys are listed by `apiKeyRecords`). */
  *records(): Generator<readonly [string, Omit<Account, "apiKeys">]> {
    for (const { apiKeys: _keys, ...account } of this.#accounts.values()) yield [account.address, account]
  }

  /** Every API key with the address it belongs to. */
  *apiKeyRecords(): Generator<readonly [string, string]> {
    for (const [apiKey, account] of this.#byKey) yield [apiKey, account.address]
  }

  /** Puts back accounts and API keys kept by `records` and `apiKeyRecords`. */
  restore(accounts: Iterable<Omit<Account, "apiKeys">>, apiKeys: Iterable<readonly [string, string]>): void {
    for (const account of accounts) this.#accounts.set(account.address, { ...account, apiKeys: new Set() })
    for (const [apiKey, address] of apiKeys) {
      const account = this.#accounts.get(address)
      if (account === undefined) continue
      account.apiKeys.add(apiKey)
      this.#byKey.set(apiKey, account)
    }
  }
}
