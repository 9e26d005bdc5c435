/**
 * A queue between a producer that pushes and a consumer that pulls with `for await`. `push`
 * settles once the queue is below its capacity again, so a capacity of 1 hands one value at a
 * time to the consumer (back-pressure) and `Infinity` never waits.
 *
 * @internal
 */
export class Pipe<A> implements AsyncIterable<A> {
  readonly #capacity: number
  readonly #queue: Array<A> = []
  #ended = false
  #failure: { readonly error: unknown } | undefined
  #wakeReader: (() => void) | undefined
  #wakeWriters: Array<() => void> = []

  constructor(capacity: number) {
    this.#capacity = capacity
  }

  push(value: A): Promise<void> {
    if (this.#ended || this.#failure !== undefined) return Promise.resolve()
    this.#queue.push(value)
    this.#wake()
    if (this.#queue.length < this.#capacity) return Promise.resolve()
    return new Promise((resolve) => this.#wakeWriters.push(resolve))
  }

  /** No more values: the consumer finishes after the queued ones. */
  end(): void {
    this.#ended = true
    this.#wake()
  }

  /** The consumer throws `error` once the queued values are taken; waiting producers go on. */
  fail(error: unknown): void {
    this.#failure ??= { error }
    this.#wake()
    this.#releaseWriters()
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<A> {
    while (true) {
      const next = this.#queue.shift()
      if (next !== undefined) {
        if (this.#queue.length < this.#capacity) this.#releaseWriters()
        yield next
        continue
      }
      if (this.#failure !== undefined) throw this.#failure.error
      if (this.#ended) return
      await new Promise<void>((resolve) => {
        this.#wakeReader = resolve
      })
    }
  }

  #wake() {
    const wake = this.#wakeReader
    this.#wakeReader = undefined
    wake?.()
  }

  #releaseWriters() {
    const writers = this.#wakeWriters
    this.#wakeWriters = []
    for (const writer of writers) writer()
  }
}
