/**
 * The library for code that does not use Effect: the same capabilities as async
 * functions over one `ManagedRuntime`.
 *
 * A failed call rejects with the typed error itself, an `Error` subclass whose
 * `message` is the catalogue text and whose `_tag` names it, so
 * `err._tag === "InvalidCid"` or `err instanceof Errors.InvalidCid` both work.
 * Streams (the uploads list) become async iterables.
 *
 * ```ts
 * import { createLighthouse } from "lighthouse-effect/promise"
 * const lighthouse = createLighthouse({ hosts: { api: "http://127.0.0.1:4001" } })
 * const usage = await lighthouse.files.usage(apiKey)
 * await lighthouse.dispose()
 * ```
 *
 * @since 0.1.0
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Stream from "effect/Stream"
import { AccessControl } from "./AccessControl.ts"
import { Auth } from "./Auth.ts"
import { Download } from "./Download.ts"
import { Files } from "./Files.ts"
import { Ipns } from "./Ipns.ts"
import { KeyShards } from "./KeyShards.ts"
import * as Lighthouse from "./Lighthouse.ts"
import { Payment } from "./Payment.ts"
import { Upload } from "./Upload.ts"

/** A service's methods as Promise-returning functions (streams as async iterables). */
export type Promised<S> = {
  readonly [K in keyof S]: S[K] extends (...args: infer A) => Effect.Effect<infer R, infer _E, infer _Q>
    ? (...args: A) => Promise<R>
    : S[K] extends (...args: infer A) => Stream.Stream<infer R, infer _E, infer _Q>
      ? (...args: A) => AsyncIterable<R>
      : S[K]
}

export interface LighthouseClient {
  readonly auth: Promised<Auth["Service"]>
  readonly keyShards: Promised<KeyShards["Service"]>
  readonly accessControl: Promised<AccessControl["Service"]>
  readonly upload: Promised<Upload["Service"]>
  readonly download: Promised<Download["Service"]>
  readonly files: Promised<Files["Service"]>
  readonly ipns: Promised<Ipns["Service"]>
  readonly payment: Promised<Payment["Service"]>
  /** Releases the runtime (caches, pending calls). */
  readonly dispose: () => Promise<void>
}

export interface ClientOptions extends Lighthouse.Options {
  /** The file system for path inputs; without one, paths fail with a typed error (as in a browser). */
  readonly fileSystem?: Layer.Layer<FileSystem.FileSystem>
}

/**
 * Wraps each method of a service so that it runs on `runtime`. Methods named in
 * `streams` return Effect streams, handed out as async iterables.
 */
const promised = <I, S extends object>(
  runtime: ManagedRuntime.ManagedRuntime<Lighthouse.Services, never>,
  tag: Context.Key<I, S>,
  streams: ReadonlyArray<string> = []
): Promised<S> =>
  new Proxy({} as Promised<S>, {
    get: (_target, key) => {
      if (typeof key !== "string") return undefined
      const invoke = (args: ReadonlyArray<unknown>) =>
        Effect.map(Effect.service(tag as unknown as Context.Key<Lighthouse.Services, S>), (service) =>
          (service[key as keyof S] as (...a: ReadonlyArray<unknown>) => unknown)(...args)
        )
      if (streams.includes(key)) {
        return (...args: ReadonlyArray<unknown>) => ({
          async *[Symbol.asyncIterator]() {
            const stream = (await runtime.runPromise(invoke(args))) as Stream.Stream<unknown, unknown, never>
            yield* Stream.toAsyncIterable(stream)
          }
        })
      }
      return (...args: ReadonlyArray<unknown>) =>
        runtime.runPromise(Effect.flatMap(invoke(args), (effect) => effect as Effect.Effect<unknown, unknown, never>))
    }
  })

/** A Promise client over any layer that provides every service (see `Lighthouse.layerWith`). */
export const makeClient = (layer: Layer.Layer<Lighthouse.Services>): LighthouseClient => {
  const runtime = ManagedRuntime.make(layer)
  return {
    auth: promised(runtime, Auth),
    keyShards: promised(runtime, KeyShards),
    accessControl: promised(runtime, AccessControl),
    upload: promised(runtime, Upload),
    download: promised(runtime, Download, ["stream"]),
    files: promised(runtime, Files, ["uploads"]),
    ipns: promised(runtime, Ipns),
    payment: promised(runtime, Payment),
    dispose: () => runtime.dispose()
  }
}

/** A client with every capability, as Promises, over `fetch`. */
export const createLighthouse = (options: ClientOptions = {}): LighthouseClient =>
  makeClient(
    options.fileSystem === undefined
      ? Lighthouse.layerBrowser(options)
      : Lighthouse.layer(options).pipe(Layer.provide(options.fileSystem))
  )
