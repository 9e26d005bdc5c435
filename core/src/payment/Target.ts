/**
 * Which network and token a payment call is about: names are case-insensitive, an omitted
 * network is the configured default, and a network given empty is the provider's missing one.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { Address } from "viem"
import { TokenNotProvided, UnsupportedNetwork, UnsupportedToken } from "../Errors.ts"
import type * as LighthouseConfig from "../LighthouseConfig.ts"
import type { TokenSymbol } from "../Networks.ts"
import * as Chain from "./Chain.ts"
import type { PaymentToken, Target, TargetFailure } from "./Models.ts"

/** A network and token, looked up in the network table. */
export interface Resolved {
  readonly network: Chain.NamedNetwork
  readonly token: PaymentToken
  /** The token contract, for a stablecoin. */
  readonly tokenAddress: Address | undefined
  readonly decimals: number
}

const paymentTokens: ReadonlyArray<PaymentToken> = ["native", "usdc", "usdt", "dai"]

/** The network of that name in the configuration's table. */
export const resolveNetwork = (
  config: LighthouseConfig.Options,
  name: string | null | undefined
): Effect.Effect<Chain.NamedNetwork, TargetFailure> => {
  // An omitted network is the configured default; one given empty (or null, from untyped code) is
  // the provider's missing network, which it reported with this very wording.
  if (name === undefined) name = config.defaultNetwork
  if (name === null || name.trim() === "") return Effect.fail(new TokenNotProvided({}))
  const key = name.trim().toLowerCase()
  const network = Object.hasOwn(config.networks, key) ? config.networks[key] : undefined
  return network === undefined
    ? Effect.fail(new UnsupportedNetwork({ network: name }))
    : Effect.succeed({ ...network, name: key })
}

/** The token of a resolved network. */
const resolveToken = (
  network: Chain.NamedNetwork,
  name: string | undefined
): Effect.Effect<Resolved, UnsupportedToken> => {
  const token = (name ?? "native").trim().toLowerCase()
  if (!(paymentTokens as ReadonlyArray<string>).includes(token))
    return Effect.fail(new UnsupportedToken({ network: network.name, token }))
  if (token === "native")
    return Effect.succeed({
      network,
      token: "native",
      tokenAddress: undefined,
      decimals: Chain.nativeDecimals(network)
    })
  const listed = network.tokens[token as TokenSymbol]
  return listed === undefined
    ? Effect.fail(new UnsupportedToken({ network: network.name, token }))
    : Effect.succeed({
        network,
        token: token as TokenSymbol,
        tokenAddress: listed.address as Address,
        decimals: listed.decimals
      })
}

/** The network and token of a target. */
export const resolve = (config: LighthouseConfig.Options, target: Target): Effect.Effect<Resolved, TargetFailure> =>
  Effect.flatMap(resolveNetwork(config, target.network), (network) => resolveToken(network, target.token))
