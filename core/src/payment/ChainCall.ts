/**
 * Calls to a chain through viem, with the contract's and the tokens' custom errors decoded into
 * typed errors, and the public client of a network.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { Abi, PublicClient, Transport } from "viem"
import { paymentAbi, tokenAbi } from "./Abi.ts"
import * as Chain from "./Chain.ts"
import type { ChainFailure } from "./Models.ts"

/** How a network is reached: `ChainTransport`'s choice. */
export type TransportOf = (network: Chain.NamedNetwork) => Transport

// Every ABI whose custom errors a payment can revert with: the contract's and the tokens'.
const errorAbi: Abi = [...paymentAbi, ...tokenAbi]

/** A viem failure as a typed chain failure. */
export const fromViem = Chain.fromViemError(errorAbi)

/** Runs one viem call. */
export const chainCall = <A>(run: () => Promise<A>): Effect.Effect<A, ChainFailure> =>
  Effect.tryPromise({ try: run, catch: fromViem })

/** The public client of a network over its transport. */
export const clientOf = (transportOf: TransportOf, network: Chain.NamedNetwork): PublicClient =>
  Chain.publicClient(network, transportOf(network))
