/**
 * Runs a library call from a React event handler and tracks it:
 * `{ state: "idle" | "running" | "success" | "failure", value, error, run }`.
 *
 * ```tsx
 * const usage = useEffectCall((apiKey: string) => Files.Files.use((files) => files.usage(apiKey)))
 * <button onClick={() => usage.run(apiKey)}>Check usage</button>
 * {usage.state === "failure" && <p role="alert">{usage.error.message}</p>}
 * ```
 *
 * A new `run` interrupts the previous one, and unmounting interrupts the call in flight, so a
 * late answer never overwrites a newer one. A failure is the call's typed error; a defect (a bug,
 * not an expected failure) is an `UnexpectedError` with the squashed cause.
 */
import { Cause, type Effect, Exit } from "effect"
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react"
import type { LighthouseServices } from "./LighthouseLayer.ts"
import { useLighthouseRuntime } from "./LighthouseProvider.tsx"

/** A failure that is not one of the call's typed errors. */
export class UnexpectedError extends Error {
  readonly _tag = "UnexpectedError"
  constructor(readonly defect: unknown) {
    super(`Unexpected error: ${defect instanceof Error ? defect.message : String(defect)}`)
  }
}

export type CallState<A, E> =
  | { readonly state: "idle"; readonly value: undefined; readonly error: undefined }
  | { readonly state: "running"; readonly value: undefined; readonly error: undefined }
  | { readonly state: "success"; readonly value: A; readonly error: undefined }
  | { readonly state: "failure"; readonly value: undefined; readonly error: E | UnexpectedError }

export type EffectCall<A, E, Args extends ReadonlyArray<unknown>> = CallState<A, E> & {
  /** Starts the call (interrupting one in flight); resolves when it ends, never rejects. */
  readonly run: (...args: Args) => Promise<Exit.Exit<A, E>>
  /** Back to `idle`, interrupting a call in flight. */
  readonly reset: () => void
}

const idle = { state: "idle", value: undefined, error: undefined } as const

export const useEffectCall = <A, E, Args extends ReadonlyArray<unknown>>(
  call: (...args: Args) => Effect.Effect<A, E, LighthouseServices>
): EffectCall<A, E, Args> => {
  const runtime = useLighthouseRuntime()
  const [state, setState] = useState<CallState<A, E>>(idle)
  const inFlight = useRef<AbortController | undefined>(undefined)
  // The latest `call` without making `run` change on every render (callers may pass inline lambdas).
  const latest = useRef(call)
  useLayoutEffect(() => {
    latest.current = call
  })

  useEffect(() => () => inFlight.current?.abort(), [])

  const run = useCallback(
    async (...args: Args) => {
      inFlight.current?.abort()
      const controller = new AbortController()
      inFlight.current = controller
      setState({ state: "running", value: undefined, error: undefined })
      const exit = await runtime.runPromiseExit(latest.current(...args), { signal: controller.signal })
      if (controller.signal.aborted) return exit
      if (Exit.isSuccess(exit)) setState({ state: "success", value: exit.value, error: undefined })
      else {
        const failure = Cause.findErrorOption(exit.cause)
        const error = failure._tag === "Some" ? failure.value : new UnexpectedError(Cause.squash(exit.cause))
        setState({ state: "failure", value: undefined, error })
      }
      return exit
    },
    [runtime]
  )

  const reset = useCallback(() => {
    inFlight.current?.abort()
    setState(idle)
  }, [])

  return { ...state, run, reset }
}
