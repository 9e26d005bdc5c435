/**
 * PDP deals of the simulated API host: one per requester and CID, visible in `pdp_deal_status`
 * once the network's clock has moved {@link PdpDealDelayMs} past the request (the provider says
 * deals take about 20 minutes to show up), then `completed`, with the root CID, where the piece is
 * served (the gateway's CAR of the root) and a transaction hash.
 *
 * Kept in memory only: a served network restarted from its state directory forgets them.
 */

/** How long after a request the deal shows up (20 minutes). */
export const PdpDealDelayMs = 20 * 60 * 1000

/** The largest file a PDP deal takes, in bytes (the provider's "100 MB", as 100 MiB). */
export const PdpSizeLimit = 100 * 1024 * 1024

export interface PdpDeal {
  readonly id: string
  /** The CID as it was asked for. */
  readonly cid: string
  /** The requester's address, lower-cased. */
  readonly publicKey: string
  readonly requestedAt: number
  readonly downloadUrl: string
  readonly txHash: string
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")

export class PdpDeals {
  readonly #deals: Array<PdpDeal> = []
  readonly #clock: () => number
  readonly #gateway: string

  constructor(clock: () => number, gateway: string) {
    this.#clock = clock
    this.#gateway = gateway
  }

  /** Records a request; asking again for the same CID keeps the first request. */
  request(cid: string, publicKey: string): PdpDeal {
    const known = this.#deals.find((deal) => deal.cid === cid && deal.publicKey === publicKey)
    if (known !== undefined) return known
    const deal: PdpDeal = {
      id: crypto.randomUUID(),
      cid,
      publicKey,
      requestedAt: this.#clock(),
      downloadUrl: `${this.#gateway}/ipfs/${cid}?format=car`,
      txHash: `0x${hex(crypto.getRandomValues(new Uint8Array(32)))}`
    }
    this.#deals.push(deal)
    return deal
  }

  /** The deals of `cid` that have shown up by now, as `pdp_deal_status` lists them. */
  status(cid: string): ReadonlyArray<ReturnType<typeof listedPdpDeal>> {
    const now = this.#clock()
    return this.#deals.filter((deal) => deal.cid === cid && deal.requestedAt + PdpDealDelayMs <= now).map(listedPdpDeal)
  }

  clear(): void {
    this.#deals.length = 0
  }
}

/** A deal as `pdp_deal_status` answers it. */
export const listedPdpDeal = (deal: PdpDeal) => {
  const shownAt = new Date(deal.requestedAt + PdpDealDelayMs).toISOString()
  return {
    publicKey: deal.publicKey,
    dealStatus: "completed",
    updatedAt: shownAt,
    createdAt: shownAt,
    transactionDetails: { RootCID: deal.cid, DownloadURL: deal.downloadUrl, TXHash: deal.txHash },
    cid: deal.cid,
    id: deal.id
  }
}
