/**
 * In-memory ledgers for Solana and Coreum conditions: tests set balances and block data, the
 * nodes read them. One ledger per family serves every cluster (`DEVNET`, `TESTNET`, `MAINNET`;
 * `Coreum_Devnet` …), so a test sets a balance once.
 *
 * Solana conditions (`standardContractType` `""` or `spl-token`):
 * - `getBalance`: lamports of the first parameter (after `:userAddress` substitution), else of the caller;
 * - `getBlockHeight`, `getLastBlockTime` (unix seconds);
 * - `spl-token` + `getTokenAccountsByOwner`: the owner's total raw amount of the mint `contractAddress`
 *   over all its token accounts. `pdaInterface` is accepted and not used: there are no PDAs here.
 *
 * Coreum conditions (methods compared case-insensitively):
 * - `getBalance`: the subject's balance of `denom` (bank module, smallest unit);
 * - `getNftBalance`: how many NFTs of class `classid` the subject holds;
 * - `getBlockHeight`, `getBlockTime` (unix seconds).
 * Any other method, or a missing `denom`/`classid`, makes the condition false.
 *
 * @since 0.1.0
 */
import type { AccessCondition } from "lighthouse-effect"
import { type ComparatorSymbol, compare } from "./Comparator.ts"
import { type EvaluationContext, subjectOf, substitute } from "./Parameters.ts"

type Amount = bigint | number

const toBigInt = (amount: Amount, what: string): bigint => {
  const value = typeof amount === "bigint" ? amount : Number.isSafeInteger(amount) ? BigInt(amount) : undefined
  if (value === undefined || value < 0n) throw new RangeError(`${what} must be a non-negative integer, got ${amount}`)
  return value
}

// EVM-style subjects are compared lower-cased; base58 and bech32 keys as given (they are case-sensitive).
export const accountKey = (address: string) => (/^0x[0-9a-fA-F]{40}$/.test(address) ? address.toLowerCase() : address)

export interface SolanaLedger {
  /** Native balance in lamports. */
  readonly setBalance: (address: string, lamports: Amount) => void
  /** Raw token amount the owner holds of `mint` (summed over its token accounts). */
  readonly setTokenBalance: (owner: string, mint: string, amount: Amount) => void
  readonly setBlockHeight: (height: Amount) => void
  readonly setBlockTime: (unixSeconds: Amount) => void
  readonly balanceOf: (address: string) => bigint
  readonly tokenBalanceOf: (owner: string, mint: string) => bigint
  readonly blockHeight: () => bigint
  readonly blockTime: () => bigint
  readonly reset: () => void
}

export interface CoreumLedger {
  /** Bank balance of `denom` (e.g. `ucore`), in its smallest unit. */
  readonly setBalance: (address: string, denom: string, amount: Amount) => void
  /** Number of NFTs of class `classId` the owner holds. */
  readonly setNftCount: (owner: string, classId: string, count: Amount) => void
  readonly setBlockHeight: (height: Amount) => void
  readonly setBlockTime: (unixSeconds: Amount) => void
  readonly balanceOf: (address: string, denom: string) => bigint
  readonly nftCountOf: (owner: string, classId: string) => bigint
  readonly blockHeight: () => bigint
  readonly blockTime: () => bigint
  readonly reset: () => void
}

export const makeSolanaLedger = (): SolanaLedger => {
  const balances = new Map<string, bigint>()
  const tokens = new Map<string, bigint>()
  let height = 0n
  let time = 0n
  return {
    setBalance: (address, lamports) => void balances.set(accountKey(address), toBigInt(lamports, "lamports")),
    setTokenBalance: (owner, mint, amount) =>
      void tokens.set(`${accountKey(owner)}/${mint}`, toBigInt(amount, "amount")),
    setBlockHeight: (h) => {
      height = toBigInt(h, "block height")
    },
    setBlockTime: (t) => {
      time = toBigInt(t, "block time")
    },
    balanceOf: (address) => balances.get(accountKey(address)) ?? 0n,
    tokenBalanceOf: (owner, mint) => tokens.get(`${accountKey(owner)}/${mint}`) ?? 0n,
    blockHeight: () => height,
    blockTime: () => time,
    reset: () => {
      balances.clear()
      tokens.clear()
      height = 0n
      time = 0n
    }
  }
}

export const makeCoreumLedger = (): CoreumLedger => {
  const balances = new Map<string, bigint>()
  const nfts = new Map<string, bigint>()
  let height = 0n
  let time = 0n
  return {
    setBalance: (address, denom, amount) =>
      void balances.set(`${accountKey(address)}/${denom}`, toBigInt(amount, "amount")),
    setNftCount: (owner, classId, count) => void nfts.set(`${accountKey(owner)}/${classId}`, toBigInt(count, "count")),
    setBlockHeight: (h) => {
      height = toBigInt(h, "block height")
    },
    setBlockTime: (t) => {
      time = toBigInt(t, "block time")
    },
    balanceOf: (address, denom) => balances.get(`${accountKey(address)}/${denom}`) ?? 0n,
    nftCountOf: (owner, classId) => nfts.get(`${accountKey(owner)}/${classId}`) ?? 0n,
    blockHeight: () => height,
    blockTime: () => time,
    reset: () => {
      balances.clear()
      nfts.clear()
      height = 0n
      time = 0n
    }
  }
}

const solanaActual = (
  condition: AccessCondition.SolanaCondition,
  ledger: SolanaLedger,
  subject: string
): bigint | undefined => {
  if (condition.standardContractType.toLowerCase() === "spl-token") {
    const mint = condition.contractAddress
    return condition.method === "getTokenAccountsByOwner" && mint !== undefined && mint !== ""
      ? ledger.tokenBalanceOf(subject, mint)
      : undefined
  }
  switch (condition.method) {
    case "getBalance":
      return ledger.balanceOf(subject)
    case "getBlockHeight":
      return ledger.blockHeight()
    case "getLastBlockTime":
      return ledger.blockTime()
    default:
      return undefined
  }
}

/** Whether a Solana condition holds for the caller. Never throws. */
export const evaluateSolanaCondition = (
  condition: AccessCondition.SolanaCondition,
  context: EvaluationContext,
  ledger: SolanaLedger
): boolean => {
  try {
    const parameters = substitute(condition.parameters ?? [], condition.id, context) as ReadonlyArray<unknown>
    const actual = solanaActual(condition, ledger, subjectOf(parameters, context))
    if (actual === undefined) return false
    const expected = substitute(condition.returnValueTest.value, condition.id, context)
    return compare(actual, condition.returnValueTest.comparator as ComparatorSymbol, expected)
  } catch {
    return false
  }
}

const coreumActual = (
  condition: AccessCondition.CoreumCondition,
  ledger: CoreumLedger,
  subject: string
): bigint | undefined => {
  switch (condition.method.toLowerCase()) {
    case "getbalance":
      return condition.denom ? ledger.balanceOf(subject, condition.denom) : undefined
    case "getnftbalance":
      return condition.classid ? ledger.nftCountOf(subject, condition.classid) : undefined
    case "getblockheight":
      return ledger.blockHeight()
    case "getblocktime":
      return ledger.blockTime()
    default:
      return undefined
  }
}

/** Whether a Coreum condition holds for the caller. Never throws. */
export const evaluateCoreumCondition = (
  condition: AccessCondition.CoreumCondition,
  context: EvaluationContext,
  ledger: CoreumLedger
): boolean => {
  try {
    const parameters = substitute(condition.parameters ?? [], condition.id, context) as ReadonlyArray<unknown>
    const actual = coreumActual(condition, ledger, subjectOf(parameters, context))
    if (actual === undefined) return false
    const expected = substitute(condition.returnValueTest.value, condition.id, context)
    return compare(actual, condition.returnValueTest.comparator as ComparatorSymbol, expected)
  } catch {
    return false
  }
}
