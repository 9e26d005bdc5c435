/**
 * Reads of the payment contract and the tokens: whether a token is accepted, what the contract
 * holds, what an address holds, and how many payments the contract has received.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { type Address, erc20Abi } from "viem"
import type * as LighthouseConfig from "../LighthouseConfig.ts"
import { paymentAbi } from "./Abi.ts"
import { chainCall, clientOf, type TransportOf } from "./ChainCall.ts"
import type { BalanceInput, Target } from "./Models.ts"
import { resolve, resolveNetwork } from "./Target.ts"

/** What a chain read needs: the configuration, and how each network is reached. */
export interface ChainDeps {
  readonly config: LighthouseConfig.Options
  readonly transportOf: TransportOf
}

export const tokenStatus = Effect.fn("Payment.tokenStatus")(function* (deps: ChainDeps, input: Target) {
  const { network, tokenAddress } = yield* resolve(deps.config, input)
  // The zero address stands for the native coin, which the contract always takes.
  if (tokenAddress === undefined) return true
  return yield* chainCall(() =>
    clientOf(deps.transportOf, network).readContract({
      address: network.paymentContract as Address,
      abi: paymentAbi,
      functionName: "getTokenStatus",
      args: [tokenAddress]
    })
  )
})

export const contractBalance = Effect.fn("Payment.contractBalance")(function* (deps: ChainDeps, input: Target) {
  const { network, tokenAddress } = yield* resolve(deps.config, input)
  const address = network.paymentContract as Address
  const client = clientOf(deps.transportOf, network)
  return yield* tokenAddress === undefined
    ? chainCall(() => client.readContract({ address, abi: paymentAbi, functionName: "getNativeBalance" }))
    : chainCall(() =>
        client.readContract({ address, abi: paymentAbi, functionName: "getERC20Balance", args: [tokenAddress] })
      )
})

export const balance = Effect.fn("Payment.balance")(function* (deps: ChainDeps, input: BalanceInput) {
  const { network, tokenAddress } = yield* resolve(deps.config, input)
  const client = clientOf(deps.transportOf, network)
  return yield* tokenAddress === undefined
    ? chainCall(() => client.getBalance({ address: input.address }))
    : chainCall(() =>
        client.readContract({ address: tokenAddress, abi: erc20Abi, functionName: "balanceOf", args: [input.address] })
      )
})

export const paymentCount = Effect.fn("Payment.paymentCount")(function* (
  deps: ChainDeps,
  input: Omit<Target, "token"> = {}
) {
  const network = yield* resolveNetwork(deps.config, input.network)
  return yield* chainCall(() =>
    clientOf(deps.transportOf, network).readContract({
      address: network.paymentContract as Address,
      abi: paymentAbi,
      functionName: "paymentCount"
    })
  )
})
