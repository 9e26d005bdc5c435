/**
 * Storage bought on chain: the mock API reads `ReceivedPayment` events of the payment contract and
 * raises the payer's data limit.
 *
 * The provider's price: 0.00390625 USD per MiB, so 1 USD buys 256 MiB. A stablecoin amount
 * is `amount / 10^decimals` USD; a native-coin amount is converted with the ticker price of its
 * symbol. Clients price an upload by rounding the USD figure to the token's decimals, so the credit
 * is the largest size whose price, rounded the same way, the payment covers: paying what the
 * client computed for N bytes always buys at least N bytes.
 *
 * `sync()` reads the logs from the block after the last one it read up to the chain's head; each
 * log (transaction hash + log index) is credited once.
 */
import { type Address, type PublicClient, parseAbi, zeroAddress } from "viem"
import type { Accounts } from "./Accounts.ts"
import type { Tickers } from "./Tickers.ts"

/** The payment contract's event, with its indexed fields (`sender`, `tokenAddress`). */
export const receivedPaymentAbi = parseAbi([
  "event ReceivedPayment(address indexed sender, address indexed tokenAddress, uint256 txId, uint256 amount, uint256 timestamp, bytes data)"
])

/** 1 USD buys 256 MiB at 0.00390625 USD per MiB. */
export const BytesPerUsd = 256n * 1024n * 1024n

/** Fixed-point scale of native-coin prices. */
const PRICE_SCALE = 100_000_000n

export interface PaymentsOptions {
  /** Reads the chain: a viem `PublicClient` (only `getBlockNumber` and `getContractEvents` are used). */
  readonly publicClient: Pick<PublicClient, "getBlockNumber" | "getContractEvents">
  /** Address of the payment contract. */
  readonly contract: Address
  /** Stablecoins accepted, by address (any case), each worth 1 USD per whole token. */
  readonly tokens?: Readonly<Record<string, { readonly decimals: number; readonly symbol?: string }>>
  /** Ticker symbol of the chain's native coin (priced with `get_ticker`). Default `ETH`. */
  readonly nativeSymbol?: string
  /** Default 18. */
  readonly nativeDecimals?: number
  /** Bytes one USD buys. Default 256 MiB. */
  readonly bytesPerUsd?: bigint
  /** First block to read. Default 0. */
  readonly fromBlock?: bigint
}

export interface Credit {
  readonly address: string
  readonly token: string
  readonly symbol: string
  readonly amount: bigint
  readonly txId: bigint
  readonly bytes: number
  readonly transactionHash: string
  readonly logIndex: number
  readonly blockNumber: bigint
}

export interface Ignored {
  readonly reason: string
  readonly transactionHash: string
  readonly logIndex: number
}

export interface SyncResult {
  /** Blocks read, inclusive; `undefined` when there was nothing new. */
  readonly fromBlock: bigint | undefined
  readonly toBlock: bigint
  readonly credited: ReadonlyArray<Credit>
  /** Payments that could not be priced (unknown token, no ticker price). */
  readonly ignored: ReadonlyArray<Ignored>
}

/**
 * Bytes bought by `amount` units of a token with `decimals` decimals worth `priceScaled / 10^8`
 * USD each: the largest S with round(S · usdPerByte · 10^decimals / price) ≤ amount.
 */
export const bytesForPayment = (
  amount: bigint,
  decimals: number,
  priceScaled: bigint = PRICE_SCALE,
  bytesPerUsd: bigint = BytesPerUsd
): number => {
  if (amount <= 0n) return 0
  const numerator = (2n * amount + 1n) * bytesPerUsd * priceScaled
  const denominator = 2n * 10n ** BigInt(decimals) * PRICE_SCALE
  const ceil = (numerator + denominator - 1n) / denominator
  const bytes = ceil - 1n
  return bytes > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(bytes)
}

export class Payments {
  readonly #options: PaymentsOptions
  readonly #accounts: Accounts
  readonly #tickers: Tickers
  readonly #seen = new Set<string>()
  readonly #credits: Array<Credit> = []
  #nextBlock: bigint

  constructor(options: PaymentsOptions, accounts: Accounts, tickers: Tickers) {
    this.#options = options
    this.#accounts = accounts
    this.#tickers = tickers
    this.#nextBlock = options.fromBlock ?? 0n
  }

  /** Every credit made so far, oldest first. */
  get credits(): ReadonlyArray<Credit> {
    return this.#credits
  }

  /** The next block `sync` will read from. */
  get nextBlock(): bigint {
    return this.#nextBlock
  }

  async sync(): Promise<SyncResult> {
    // viem caches the block number for a few seconds by default; a sync must see the real head.
    const head = await this.#options.publicClient.getBlockNumber({ cacheTime: 0 })
    if (head < this.#nextBlock) return { fromBlock: undefined, toBlock: head, credited: [], ignored: [] }
    const fromBlock = this.#nextBlock
    const logs = await this.#options.publicClient.getContractEvents({
      address: this.#options.contract,
      abi: receivedPaymentAbi,
      eventName: "ReceivedPayment",
      fromBlock,
      toBlock: head,
      strict: true
    })
    const credited: Array<Credit> = []
    const ignored: Array<Ignored> = []
    for (const log of logs) {
      const transactionHash = log.transactionHash ?? "0x"
      const logIndex = log.logIndex ?? 0
      const id = `${transactionHash}:${logIndex}`
      if (this.#seen.has(id)) continue
      this.#seen.add(id)
      const { sender, tokenAddress, amount, txId } = log.args
      const priced = this.#price(tokenAddress, amount)
      if (typeof priced === "string") {
        ignored.push({ reason: priced, transactionHash, logIndex })
        continue
      }
      const address = sender.toLowerCase()
      this.#accounts.credit(address, priced.bytes)
      const credit: Credit = {
        address,
        token: tokenAddress.toLowerCase(),
        symbol: priced.symbol,
        amount,
        txId,
        bytes: priced.bytes,
        transactionHash,
        logIndex,
        blockNumber: log.blockNumber ?? head
      }
      credited.push(credit)
      this.#credits.push(credit)
    }
    this.#nextBlock = head + 1n
    return { fromBlock, toBlock: head, credited, ignored }
  }

  #price(token: string, amount: bigint): { readonly bytes: number; readonly symbol: string } | string {
    const bytesPerUsd = this.#options.bytesPerUsd ?? BytesPerUsd
    if (token.toLowerCase() === zeroAddress) {
      const symbol = this.#options.nativeSymbol ?? "ETH"
      const price = this.#tickers.get(symbol)
      if (price === undefined) return `no ticker price for ${symbol}`
      const priceScaled = BigInt(Math.round(price * Number(PRICE_SCALE)))
      return { bytes: bytesForPayment(amount, this.#options.nativeDecimals ?? 18, priceScaled, bytesPerUsd), symbol }
    }
    const entry = Object.entries(this.#options.tokens ?? {}).find(
      ([address]) => address.toLowerCase() === token.toLowerCase()
    )
    if (entry === undefined) return `token ${token} is not accepted`
    const [, { decimals, symbol }] = entry
    return { bytes: bytesForPayment(amount, decimals, PRICE_SCALE, bytesPerUsd), symbol: symbol ?? token.toLowerCase() }
  }

  reset(): void {
    this.#seen.clear()
    this.#credits.length = 0
    this.#nextBlock = this.#options.fromBlock ?? 0n
  }
}
