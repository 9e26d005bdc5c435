/** Vitest global setup of the storybook project: the local chain for payment and EVM-condition stories. */
import { ensureLocalChain } from "./localChain.ts"

export default async () => {
  const chain = await ensureLocalChain()
  return chain.stop
}
