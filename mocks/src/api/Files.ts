/**
 * The uploads list of the mock API: one record per entry the upload node answered (a file, a
 * folder's root directory, a CAR root), as `files_uploaded`, `file_info` and `delete_file` see it.
 *
 * Listing is newest first with cursor pagination: `lastKey` is the `id` of the last record of the
 * previous page (`null` for the first page), as in the provider's docs.
 */

export interface FileRecord {
  /** UUID. */
  readonly id: string
  /** Owner's address, lower-cased. */
  readonly publicKey: string
  readonly fileName: string
  readonly mimeType: string | null
  readonly txHash: string
  status: string
  readonly createdAt: number
  /** Bytes of content (before any DAG overhead), as a string like the provider. */
  readonly fileSizeInBytes: string
  readonly cid: string
  lastUpdate: number
  readonly encryption: boolean
  /** `X-Storage-Type` of the upload (`ipfs` when absent). */
  readonly storageType: string
  /** Parsed `X-Deal-Parameter` header, `null` when absent or `null`. */
  readonly dealParameters: unknown
}

export type NewFile = Omit<FileRecord, "id" | "createdAt" | "lastUpdate" | "status" | "txHash"> & {
  readonly status?: string
}

export interface Page {
  readonly fileList: ReadonlyArray<FileRecord>
  readonly totalFiles: number
}

export class UnknownCursor extends Error {
  constructor(lastKey: string) {
    super(`unknown lastKey: ${lastKey}`)
    this.name = "UnknownCursor"
  }
}

export class Files {
  // Insertion order = upload order; listings walk it backwards.
  readonly #records: Array<FileRecord> = []
  readonly #clock: () => number

  constructor(clock: () => number) {
    this.#clock = clock
  }

  add(file: NewFile): FileRecord {
    const now = this.#clock()
    const record: FileRecord = {
      ...file,
      id: crypto.randomUUID(),
      txHash: "",
      status: file.status ?? "queued",
      createdAt: now,
      lastUpdate: now
    }
    this.#records.push(record)
    return record
  }

  byId(id: string): FileRecord | undefined {
    return this.#records.find((record) => record.id === id)
  }

  /** The newest record for a CID (any owner). */
  byCid(cid: string): FileRecord | undefined {
    return this.#records.findLast((record) => record.cid === cid)
  }

  /**
   * The media type a file was uploaded with (its `Mime-Type` header, else its part's type or its
   * name's), from the newest record of the CID: what the gateway serves it as. `undefined` for a
   * CID uploaded inside a folder only, without a type, or encrypted (its bytes are ciphertext).
   */
  mediaTypeOf(cid: string): string | undefined {
    const record = this.byCid(cid)
    return record === undefined || record.encryption ? undefined : (record.mimeType ?? undefined)
  }

  /** The newest record satisfying `predicate`. */
  byCidMatching(predicate: (record: FileRecord) => boolean): FileRecord | undefined {
    return this.#records.findLast(predicate)
  }

  /** Every record of an owner, newest first, optionally filtered. */
  of(publicKey: string, filter: (record: FileRecord) => boolean = () => true): ReadonlyArray<FileRecord> {
    return this.#records.filter((record) => record.publicKey === publicKey && filter(record)).reverse()
  }

  page(
    publicKey: string,
    options: {
      readonly lastKey: string | null
      readonly pageSize: number
      readonly filter?: (record: FileRecord) => boolean
    }
  ): Page {
    const all = this.of(publicKey, options.filter)
    let start = 0
    if (options.lastKey !== null) {
      const at = all.findIndex((record) => record.id === options.lastKey)
      if (at === -1) throw new UnknownCursor(options.lastKey)
      start = at + 1
    }
    return { fileList: all.slice(start, start + options.pageSize), totalFiles: all.length }
  }

  /** Marks the records of a CID as having a deal. */
  touch(cid: string, status: string): void {
    const now = this.#clock()
    for (const record of this.#records) {
      if (record.cid === cid) {
        record.status = status
        record.lastUpdate = now
      }
    }
  }

  remove(id: string): FileRecord | undefined {
    const at = this.#records.findIndex((record) => record.id === id)
    return at === -1 ? undefined : this.#records.splice(at, 1)[0]
  }

  clear(): void {
    this.#records.length = 0
  }

  /** Every record, oldest first, by id. */
  *records(): Generator<readonly [string, FileRecord]> {
    for (const record of this.#records) yield [record.id, record]
  }

  /** Puts back records kept by `records`, oldest first. */
  restore(records: Iterable<FileRecord>): void {
    this.#records.push(...records)
  }
}
