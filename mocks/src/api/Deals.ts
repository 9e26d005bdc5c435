/**
 * Simulated Filecoin deals for stored content, and the answers of `deal_status` and `get_proof`.
 *
 * `simulate(cid)` does what the provider's aggregator does, for real: exports the DAG under the CID
 * as a CAR, computes its piece commitment, places the piece in a deal (aggregate) with its entry in
 * the data segment index, and keeps the inclusion proofs. Each copy is a separate deal with its own
 * storage provider, deal id and aggregate. Until a deal exists `deal_status` is `[]` and
 * `get_proof` answers 400 (the SDK's `Proof Doesn't exist yet`).
 */
import { CarWriter } from "@ipld/car"
import type { CID } from "multiformats/cid"
import {
  type AggregateProof,
  aggregate,
  commP,
  indexStart,
  maxIndexEntries,
  type Piece,
  pieceCid,
  toHex
} from "./Podsi.ts"

/** Filecoin mainnet genesis (epoch 0), in ms; one epoch is 30 s. */
const GENESIS_MS = Date.UTC(2020, 7, 24, 22, 0, 0)
const EPOCH_MS = 30_000
/** Deals start about a day after publishing and last 180 days (518 400 epochs). */
const START_DELAY_EPOCHS = 2_880
const DURATION_EPOCHS = 518_400

export interface DealOptions {
  /** Number of copies, each a deal with a different provider. Default 1 (or the upload's `num_copies`). */
  readonly copies?: number
  /** Storage provider ids (`f0…`) to use, in order; generated when missing. */
  readonly providers?: ReadonlyArray<string>
  /** Padded size of each deal (power of two). Default 64 MiB, grown to fit the piece. */
  readonly dealSize?: number
  /** `dealStatus` text. Default `"Sealing: Proving"`. */
  readonly status?: string
}

export interface Deal {
  /** The uploaded CID, as the deal was made for. */
  readonly cid: string
  readonly dealId: number
  readonly dealUUID: string
  readonly provider: string
  /** The piece of this upload (its CAR). */
  readonly piece: Piece
  readonly carFileSize: number
  readonly aggregate: AggregateProof
  readonly aggregateCid: CID
  readonly startEpoch: number
  readonly endEpoch: number
  readonly status: string
  readonly lastUpdate: number
}

export class UnknownContent extends Error {
  constructor(cid: string) {
    super(`no stored content for ${cid}`)
    this.name = "UnknownContent"
  }
}

const powerOfTwoAtLeast = (n: number) => {
  let size = 1
  while (size < n) size *= 2
  return size
}

// A deterministic number from the bytes of a digest, so a CID always lands in the same place.
const seedOf = (bytes: Uint8Array, salt: number) =>
  bytes.reduce((acc, byte, i) => (acc * 31 + byte + salt * (i + 7)) >>> 0, 2_166_136_261)

/** What deals read of the stored blocks (the upload node's content store). */
export interface DealContent {
  readonly has: (cid: CID) => Promise<boolean>
  readonly walk: (root: CID) => AsyncIterable<{ readonly cid: CID; readonly bytes: Uint8Array }>
}

export class Deals {
  readonly #deals = new Map<string, Array<Deal>>()
  readonly #content: DealContent
  readonly #clock: () => number
  #nextDealId = 80_000_001

  constructor(content: DealContent, clock: () => number) {
    this.#content = content
    this.#clock = clock
  }

  /** Deals made for a CID (any CID version of the same content), oldest first. */
  get(cid: CID): ReadonlyArray<Deal> {
    return this.#deals.get(cid.toV1().toString()) ?? []
  }

  clear(): void {
    this.#deals.clear()
  }

  /** The deals of every CID (by its v1 form), and the next deal id, as kept across restarts. */
  *records(): Generator<readonly [string, ReadonlyArray<Deal>]> {
    yield* this.#deals
  }

  get nextDealId(): number {
    return this.#nextDealId
  }

  /** Puts back deals kept by `records`, and the deal id counter. */
  restore(deals: Iterable<readonly [string, ReadonlyArray<Deal>]>, nextDealId: number): void {
    for (const [cid, made] of deals) this.#deals.set(cid, [...made])
    this.#nextDealId = Math.max(this.#nextDealId, nextDealId)
  }

  /** Exports the DAG under `cid` as a CAR, streaming it through `sink`; returns the CAR size. */
  async exportCar(cid: CID, sink: (chunk: Uint8Array) => Promise<void>): Promise<number> {
    const { writer, out } = CarWriter.create([cid])
    let size = 0
    const reading = (async () => {
      for await (const chunk of out) {
        size += chunk.byteLength
        await sink(chunk)
      }
    })()
    try {
      for await (const block of this.#content.walk(cid)) await writer.put(block)
    } finally {
      await writer.close()
    }
    await reading
    return size
  }

  async simulate(cid: CID, display: string, options: DealOptions = {}): Promise<ReadonlyArray<Deal>> {
    if (!(await this.#content.has(cid))) throw new UnknownContent(display)
    const copies = options.copies ?? 1
    if (!Number.isInteger(copies) || copies < 1 || copies > 10)
      throw new RangeError(`copies must be 1..10, got ${copies}`)

    const chunks: Array<Uint8Array> = []
    const carFileSize = await this.exportCar(cid, async (chunk) => {
      chunks.push(chunk)
    })
    const piece = await commP(chunks)
    const now = this.#clock()
    const epoch = Math.floor((now - GENESIS_MS) / EPOCH_MS)
    const made: Array<Deal> = []
    for (let copy = 0; copy < copies; copy++) {
      const seed = seedOf(piece.commP, copy + 1)
      const dealSize = Math.max(options.dealSize ?? 64 * 1024 * 1024, powerOfTwoAtLeast(4 * piece.size))
      if (!Number.isInteger(Math.log2(dealSize))) throw new RangeError(`dealSize must be a power of two: ${dealSize}`)
      const slots = Math.floor(indexStart(dealSize) / piece.size)
      const proof = await aggregate(piece, {
        dealSize,
        slot: seed % slots,
        entryIndex: (seed >>> 3) % maxIndexEntries(dealSize)
      })
      const startEpoch = epoch + START_DELAY_EPOCHS
      made.push({
        cid: display,
        dealId: this.#nextDealId++,
        dealUUID: crypto.randomUUID(),
        provider: options.providers?.[copy] ?? `f0${1_000_000 + (seed % 2_000_000)}`,
        piece,
        carFileSize,
        aggregate: proof,
        aggregateCid: pieceCid(proof.commPa),
        startEpoch,
        endEpoch: startEpoch + DURATION_EPOCHS,
        status: options.status ?? "Sealing: Proving",
        lastUpdate: now
      })
    }
    const key = cid.toV1().toString()
    this.#deals.set(key, [...(this.#deals.get(key) ?? []), ...made])
    return made
  }
}

/**
 * One `deal_status` entry: the fields of the provider's documented answer, plus `DealID` and
 * `Provider`, the keys its SDK tests and CLI read.
 */
export const dealStatusEntry = (deal: Deal) => ({
  DealID: deal.dealId,
  Provider: deal.provider,
  dealId: deal.dealId,
  chainDealID: deal.dealId,
  miner: deal.provider,
  storageProvider: deal.provider,
  dealStatus: deal.status,
  dealUUID: deal.dealUUID,
  pieceCID: deal.aggregateCid.toString(),
  pieceSize: deal.aggregate.sizePa,
  payloadCid: deal.cid,
  carFileSize: deal.carFileSize,
  startEpoch: deal.startEpoch,
  endEpoch: deal.endEpoch,
  lastUpdate: deal.lastUpdate
})

/** The `get_proof` answer (PoDSI) for the deals of one CID. */
export const proofResponse = (deals: ReadonlyArray<Deal>) => ({
  pieceCID: deals[0]!.piece.cid.toString(),
  dealInfo: deals.map((deal) => {
    const { aggregate: proof } = deal
    return {
      dealId: deal.dealId,
      // The provider's proofs name the provider by its actor number, without the `f0` prefix.
      storageProvider: deal.provider.replace(/^f0/, ""),
      proof: {
        verifierData: {
          commPc: toHex(deal.piece.cid.bytes),
          sizePc: deal.piece.size.toString(16)
        },
        inclusionProof: {
          proofIndex: { index: proof.proofIndex.index.toString(16), path: proof.proofIndex.path.map(toHex) },
          proofSubtree: { index: proof.proofSubtree.index.toString(16), path: proof.proofSubtree.path.map(toHex) }
        },
        // The provider's field names for the segment descriptor (CommDs, Offset, Size, Checksum).
        indexRecord: {
          checksum: toHex(proof.entry.checksum),
          proofIndex: toHex(proof.entry.commDs),
          proofSubtree: proof.entry.offset,
          size: proof.entry.size
        }
      }
    }
  })
})
