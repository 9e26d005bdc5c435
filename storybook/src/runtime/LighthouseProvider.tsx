/**
 * Hands one Effect runtime of the library to every component below it.
 *
 * ```tsx
 * const runtime = makeRuntime({ nodes: { mode: "concurrent" } })
 * <LighthouseProvider runtime={runtime}><UploadFiles … /></LighthouseProvider>
 * ```
 */
import { createContext, type ReactNode, useContext } from "react"
import type { LighthouseRuntime } from "./LighthouseLayer.ts"

const RuntimeContext = createContext<LighthouseRuntime | undefined>(undefined)

export const LighthouseProvider = ({ runtime, children }: { runtime: LighthouseRuntime; children: ReactNode }) => (
  <RuntimeContext.Provider value={runtime}>{children}</RuntimeContext.Provider>
)

/** The runtime of the nearest `LighthouseProvider`. */
export const useLighthouseRuntime = (): LighthouseRuntime => {
  const runtime = useContext(RuntimeContext)
  if (runtime === undefined) throw new Error("useLighthouseRuntime needs a <LighthouseProvider> above it")
  return runtime
}
