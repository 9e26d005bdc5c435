/**
 * A decorator rendering the story inside `LighthouseProvider` with the demo network's runtime, in
 * the box the tests take their screenshot of.
 */
import type { ReactNode } from "react"
import { LighthouseProvider } from "../runtime/LighthouseProvider.tsx"
import { demo } from "./DemoNetwork.ts"

export const withDemoRuntime = (Story: () => ReactNode) => (
  <LighthouseProvider runtime={demo().runtime}>
    <div className="lh-story">
      <Story />
    </div>
  </LighthouseProvider>
)
