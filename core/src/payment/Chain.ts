/**
 * The chain side of payments: which transport reaches a network, the viem clients built on it,
 * and the one place viem failures become catalogue errors.
 *
 * A network of the table becomes a viem `Chain` (its id, native symbol and decimals, RPC and
 * explorer), reached through `http(rpc)` unless `ChainTransport` says otherwise: tests and the
 * local network provide the in-process chain's EIP-1193 provider with `custom(provider)`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import {
  type Abi,
  type Account,
  BaseError,
  type Chain,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  decodeErrorResult,
  defineChain,
  type Hex,
  http,
  type PublicClient,
  type Transport,
  type WalletClient
} from "viem"
import { ChainError, ContractErrorName, ContractReverted, OtherContractError } from "../Errors.ts"
import type { Network } from "../Networks.ts"

// =============================================================================
// Networks as viem chains
// =============================================================================

/** A row of the network table together with its name. */
export interface NamedNetwork extends Network {
  readonly name: string
}

/**
 * The native coin's decimals. The table gives them for some chains only; every chain in
 * it is an EVM chain whose native coin (ETH, MATIC, BNB, FTM, FIL, tFIL) has 18 decimals, so 18 is
 * the fallback. The provider read `undefined` there and priced everything at 0.
 */
export const nativeDecimals = (network: Network): number => network.nativeDecimals ?? 18

/** The viem `Chain` of a network. */
export const toChain = (network: NamedNetwork): Chain =>
  defineChain({
    id: network.chainId,
    name: network.name,
    nativeCurrency: { name: network.symbol, symbol: network.symbol, decimals: nativeDecimals(network) },
    rpcUrls: { default: { http: [network.rpc] } },
    ...(network.scan === "" ? {} : { blockExplorers: { default: { name: network.name, url: network.scan } } })
  })

/**
 * How the payment service reaches a network. Defaults to `http(rpc)` from the table; provide it to
 * point a network at another node, a test chain (`custom(eip1193Provider)`) or a fallback transport.
 */
export const ChainTransport = Context.Reference<(network: NamedNetwork) => Transport>(
  "lighthouse-effect/Payment/ChainTransport",
  { defaultValue: () => (network) => http(network.rpc) }
)

/** A read-only client on `network`. */
export const publicClient = (network: NamedNetwork, transport: Transport): PublicClient =>
  createPublicClient({ chain: toChain(network), transport }) as PublicClient

/** A signing client on `network` for `account` (a local account signs in process; a JSON-RPC one at the node). */
export const walletClient = (network: NamedNetwork, transport: Transport, account: Account): WalletClient =>
  createWalletClient({ account, chain: toChain(network), transport })

/** The explorer page of a transaction, when the network has an explorer. */
export const explorerUrl = (network: Network, hash: Hex): string | undefined =>
  network.scan === "" ? undefined : `${network.scan}${hash}`

// =============================================================================
// Errors
// =============================================================================

const isContractErrorName = (name: string): name is ContractErrorName =>
  (ContractErrorName.literals as ReadonlyArray<string>).includes(name)

// `Error(string)` and `Panic(uint256)` are not custom errors: viem already words them in `shortMessage`.
const builtinErrors = new Set(["Error", "Panic"])

const revertData = (error: BaseError): Hex | undefined => {
  const carrier = error.walk((e) => typeof e === "object" && e !== null && "data" in e) as {
    readonly data?: unknown
  } | null
  const data = carrier?.data
  if (typeof data === "string" && data.startsWith("0x") && data.length >= 10) return data as Hex
  if (typeof data === "object" && data !== null && "data" in data) {
    const inner = (data as { readonly data?: unknown }).data
    if (typeof inner === "string" && inner.startsWith("0x") && inner.length >= 10) return inner as Hex
  }
  return undefined
}

const decoded = (error: BaseError, abi: Abi): { errorName: string; args: ReadonlyArray<unknown> } | undefined => {
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError)
  if (reverted instanceof ContractFunctionRevertedError && reverted.data !== undefined)
    return { errorName: reverted.data.errorName, args: reverted.data.args ?? [] }
  // A plain value transfer is not a contract call, so viem leaves its revert data undecoded.
  const data = revertData(error)
  if (data === undefined) return undefined
  try {
    const result = decodeErrorResult({ abi, data })
    return { errorName: result.errorName, args: result.args ?? [] }
  } catch {
    return undefined
  }
}

/**
 * A viem failure as a catalogue error: the payment contract's custom errors (and Ownable's) become
 * `ContractReverted`, other decoded custom errors (additive contract errors, the token's own)
 * `OtherContractError`, and everything else `ChainError` with viem's `shortMessage`.
 */
export const fromViemError =
  (abi: Abi) =>
  (error: unknown): ContractReverted | OtherContractError | ChainError => {
    if (error instanceof BaseError) {
      const custom = decoded(error, abi)
      if (custom !== undefined && !builtinErrors.has(custom.errorName)) {
        const { errorName, args } = custom
        return isContractErrorName(errorName)
          ? new ContractReverted({ errorName, args })
          : new OtherContractError({ errorName, args })
      }
      return new ChainError({ shortMessage: error.shortMessage, cause: error })
    }
    return new ChainError({ shortMessage: error instanceof Error ? error.message : String(error), cause: error })
  }
