/**
 * Token prices in USD, as `GET /api/lighthouse/get_ticker?symbol=` answers them (a bare JSON
 * number) and as the payment credit converts native-coin payments.
 *
 * The starting prices are round figures for the native coins of the spec's networks (FIL at $5 as
 * in the reference's worked example); tests set the ones they rely on with `set`.
 */

export const DefaultPrices: Readonly<Record<string, number>> = {
  FIL: 5,
  tFIL: 5,
  MATIC: 0.5,
  POL: 0.5,
  ETH: 3000,
  BNB: 600,
  FTM: 0.5
}

export class Tickers {
  readonly #prices = new Map<string, number>()

  constructor(initial: Readonly<Record<string, number>> = DefaultPrices) {
    this.reset(initial)
  }

  /** Price of one token in USD; symbols match case-insensitively. */
  get(symbol: string): number | undefined {
    return this.#prices.get(symbol.toUpperCase())
  }

  set(symbol: string, priceUsd: number): void {
    if (!(Number.isFinite(priceUsd) && priceUsd > 0)) throw new RangeError(`price must be positive, got ${priceUsd}`)
    if (!/^[A-Za-z0-9]{1,16}$/.test(symbol)) throw new RangeError(`not a ticker symbol: ${symbol}`)
    this.#prices.set(symbol.toUpperCase(), priceUsd)
  }

  remove(symbol: string): boolean {
    return this.#prices.delete(symbol.toUpperCase())
  }

  all(): Readonly<Record<string, number>> {
    return Object.fromEntries(this.#prices)
  }

  reset(initial: Readonly<Record<string, number>> = DefaultPrices): void {
    this.#prices.clear()
    for (const [symbol, price] of Object.entries(initial)) this.set(symbol, price)
  }
}
