/**
 * The library for code that does not use Effect: the same capabilities as async
 * functions over one `ManagedRuntime`.
 *
 * A failed call rejects with the typed error itself, an `Error` subclass whose
 * `message` is the catalogue text and whose `_tag` names it, so
 * `err._tag === "InvalidCid"` or `err instanceof Errors.InvalidCid` both work.
 * Streams (the uploads list) become async iterables.
 *
 * Secrets come back as Effect's `Redacted` (the API key of `auth.createApiKey`, the JWTs of
 * `auth.token`, the master key of `keyShards.fetchKey`), so they never show in logs or errors
 * (`String(apiKey)` is `<redacted:ApiKey>`). Pass them on as they are; to read one,
 * `Redacted.value(apiKey)` with `import { Redacted } from "effect"`. Every method takes a secret
 * as a string or as `Redacted`.
 *
 * Every method takes a trailing `{ signal }`, as `fetch` does: aborting the signal interrupts the
 * call, cancels its HTTP requests, and rejects the promise (or ends the iteration) with the typed
 * `Aborted` (`err._tag === "Aborted"`). An optional argument given as `undefined` is one left out.
 * An argument of the wrong shape rejects with `InvalidArgument`, which names it; a path given as a
 * string where an upload takes an input is told to give `Upload.Input.path(path)` (or
 * `Upload.Input.directory(path)`), `Upload` coming from `lighthouse-effect`, as in the Effect API.
 *
 * ```ts
 * import { Signer } from "lighthouse-effect"
 * import { createLighthouse } from "lighthouse-effect/promise"
 * import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
 *
 * const lighthouse = createLighthouse({ hosts: { api: "http://127.0.0.1:4001" } })
 * const apiKey = await lighthouse.auth.createApiKey(Signer.makeFromAccount(privateKeyToAccount(generatePrivateKey())))
 * const usage = await lighthouse.files.usage(apiKey)
 * await lighthouse.dispose()
 * ```
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Path from "effect/Path"
import * as Stream from "effect/Stream"
import { AccessControl } from "./AccessControl.ts"
import { Auth } from "./Auth.ts"
import { Download } from "./Download.ts"
import { Aborted, type ConfigConflict } from "./Errors.ts"
import { Files } from "./Files.ts"
import { Ipns } from "./Ipns.ts"
import { KeyShards } from "./KeyShards.ts"
import * as Lighthouse from "./Lighthouse.ts"
import { everyService } from "./LighthouseServices.ts"
import { Payment } from "./Payment.ts"
import { checkArguments, type FacadeService, type FacadeServices } from "./promise/Arguments.ts"
import { Upload } from "./Upload.ts"

/**
 * The trailing argument of every facade method.
 *
 * @category models
 */
export interface CallOptions {
  /** Aborting it interrupts the call and cancels its requests; the call rejects with `Aborted`. */
  readonly signal: AbortSignal | undefined
}

/**
 * A service's methods as Promise-returning functions (streams as async iterables), each with a trailing `{ signal }`.
 *
 * @category models
 */
export type Promised<S> = {
  readonly [K in keyof S]: S[K] extends (...args: infer A) => Effect.Effect<infer R, infer _E, infer _Q>
    ? (...args: [...A, CallOptions?]) => Promise<R>
    : S[K] extends (...args: infer A) => Stream.Stream<infer R, infer _E, infer _Q>
      ? (...args: [...A, CallOptions?]) => AsyncIterable<R>
      : S[K]
}

/** A trailing `{ signal }`: an object whose only key is `signal`, an `AbortSignal` or undefined. */
const isCallOptions = (u: unknown): u is CallOptions => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return false
  const keys = Object.keys(u)
  if (keys.length !== 1 || keys[0] !== "signal") return false
  const signal = (u as { signal: unknown }).signal
  return signal === undefined || (typeof AbortSignal !== "undefined" && signal instanceof AbortSignal)
}

/** The arguments without trailing `undefined`s: an optional argument given as `undefined` is one left out. */
const withoutTrailingUndefined = (args: ReadonlyArray<unknown>): ReadonlyArray<unknown> => {
  let end = args.length
  while (end > 0 && args[end - 1] === undefined) end--
  return args.slice(0, end)
}

/** The method's arguments and the signal of a trailing `{ signal }`; `undefined`s at the end of either are left out. */
const splitCallOptions = (all: ReadonlyArray<unknown>): [ReadonlyArray<unknown>, AbortSignal | undefined] => {
  const args = withoutTrailingUndefined(all)
  const last = args.at(-1)
  return isCallOptions(last) ? [withoutTrailingUndefined(args.slice(0, -1)), last.signal] : [args, undefined]
}

/** Fails with `Aborted` once `signal` aborts (at once if it already has). */
const abortion = (signal: AbortSignal): Effect.Effect<never, Aborted> =>
  Effect.callback<never, Aborted>((resume) => {
    const onAbort = () => resume(Effect.fail(new Aborted()))
    if (signal.aborted) return onAbort()
    signal.addEventListener("abort", onAbort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", onAbort))
  })

/** `runPromise`, interrupted by `signal`; an abort rejects with `Aborted`, as `fetch` rejects with its `AbortError`. */
const runAbortable = <A>(
  runtime: Runtime,
  effect: Effect.Effect<A, unknown, Lighthouse.Services | Platform>,
  signal: AbortSignal | undefined
): Promise<A> =>
  signal === undefined
    ? runtime.runPromise(effect)
    : runtime.runPromiseExit(effect, { signal }).then((exit) => {
        if (Exit.isSuccess(exit)) return exit.value
        if (signal.aborted && Cause.hasInterrupts(exit.cause)) throw new Aborted()
        throw Cause.squash(exit.cause)
      })

/** Every service as Promises: `auth`, `keyShards`, `accessControl`, `upload`, `download`, `files`, `ipns`, `payment`. */
type PromisedServices = { readonly [K in keyof FacadeServices]: Promised<FacadeServices[K]> }

/** @category models */
export interface LighthouseClient extends PromisedServices {
  /** Releases the runtime (caches, pending calls). */
  readonly dispose: () => Promise<void>
}

/** @category models */
export interface ClientOptions extends Lighthouse.Options {
  /** The file system for path inputs; without one, paths fail with a typed error (as in a browser). */
  readonly fileSystem?: Layer.Layer<FileSystem.FileSystem>
}

/**
 * Wraps each method of a service so that it runs on `runtime`. Methods named in
 * `streams` return Effect streams, handed out as async iterables.
 */
const promised = <I, S extends object>(
  runtime: Runtime,
  name: FacadeService,
  tag: Context.Key<I, S>,
  streams: ReadonlyArray<string> = []
): Promised<S> =>
  new Proxy({} as Promised<S>, {
    get: (_target, key) => {
      if (typeof key !== "string") return undefined
      const call = (args: ReadonlyArray<unknown>) =>
        Effect.map(Effect.service(tag as unknown as Context.Key<Lighthouse.Services, S>), (service) =>
          (service[key as keyof S] as (...a: ReadonlyArray<unknown>) => unknown)(...args)
        )
      // The arguments' shapes first: a JavaScript caller's mistake is a typed InvalidArgument.
      const invoke = (args: ReadonlyArray<unknown>) => {
        const invalid = checkArguments(name, key, args)
        return invalid !== undefined ? Effect.fail(invalid) : call(args)
      }
      if (streams.includes(key)) {
        return (...all: ReadonlyArray<unknown>) => {
          const [args, signal] = splitCallOptions(all)
          return {
            async *[Symbol.asyncIterator]() {
              const stream = (await runAbortable(runtime, invoke(args), signal)) as Stream.Stream<
                unknown,
                unknown,
                never
              >
              yield* Stream.toAsyncIterable(
                signal === undefined ? stream : Stream.interruptWhen(stream, abortion(signal))
              )
            }
          }
        }
      }
      return (...all: ReadonlyArray<unknown>) => {
        const [args, signal] = splitCallOptions(all)
        return runAbortable(
          runtime,
          Effect.flatMap(invoke(args), (effect) => effect as Effect.Effect<unknown, unknown, never>),
          signal
        )
      }
    }
  })

/**
 * What `payment.quotePaths` reads paths with, beside the services: a file system (by default none,
 * so paths fail with a typed `PlatformError`, as in a browser) and path handling.
 *
 * @category models
 */
export type Platform = FileSystem.FileSystem | Path.Path

type Runtime = ManagedRuntime.ManagedRuntime<Lighthouse.Services | Platform, ConfigConflict>

/**
 * A Promise client over any layer that provides every service (`Lighthouse.layer`, or `layer` of `lighthouse-effect/node`).
 *
 * @category constructors
 */
export const makeClient = (
  layer: Layer.Layer<Lighthouse.Services, ConfigConflict>,
  platform: Layer.Layer<Platform> = Layer.merge(FileSystem.layerNoop({}), Path.layer)
): LighthouseClient => {
  const runtime = ManagedRuntime.make(Layer.merge(layer, platform))
  return {
    auth: promised(runtime, "auth", Auth),
    keyShards: promised(runtime, "keyShards", KeyShards),
    accessControl: promised(runtime, "accessControl", AccessControl),
    upload: promised(runtime, "upload", Upload),
    download: promised(runtime, "download", Download, ["stream"]),
    files: promised(runtime, "files", Files, ["uploads"]),
    ipns: promised(runtime, "ipns", Ipns),
    payment: promised(runtime, "payment", Payment),
    dispose: () => runtime.dispose()
  }
}

/**
 * A client with every capability, as Promises, over `fetch`.
 *
 * @category constructors
 */
export const createLighthouse = (options: ClientOptions = {}): LighthouseClient =>
  makeClient(
    options.fileSystem === undefined
      ? Lighthouse.layer(options)
      : everyService(options).pipe(Layer.provide([Lighthouse.httpLayer, options.fileSystem])),
    Layer.merge(options.fileSystem ?? FileSystem.layerNoop({}), Path.layer)
  )
