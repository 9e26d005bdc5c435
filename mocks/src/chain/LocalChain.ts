/**
 * A local EVM chain for scripts and tests: Hardhat 3's in-process simulated network (EDR), with
 * viem clients ready to use. No node process, no port and no network access are needed.
 *
 * ```ts
 * import { deployLocal } from "lighthouse-effect/contracts"
 * import { startLocalChain } from "lighthouse-effect/mocks/chain"
 *
 * const chain = await startLocalChain()            // about 1.5-2 s the first time in a process
 * const deployment = await deployLocal(chain.walletClients[0]!, chain.publicClient)
 * // ... chain.publicClient.readContract / getLogs, chain.walletClients[1]!.writeContract ...
 * await chain.stop()
 * ```
 *
 * With `{ serve: { port } }` the same chain is also served over HTTP/WebSocket JSON-RPC on
 * 127.0.0.1 (for `npm run serve`, wallets, other languages) and the clients talk to it over HTTP.
 * Without it the clients call the chain in process, so msw and other fetch interceptors never see
 * chain traffic. Chain id 31337, automine (every transaction is mined at once), 20 accounts of
 * Hardhat's public test mnemonic with 10 000 ETH each.
 *
 * @since 0.1.0
 */
import path from "node:path"
import { fileURLToPath } from "node:url"
import { createHardhatRuntimeEnvironment } from "hardhat/hre"
import type { NetworkConfig } from "hardhat/types/config"
import {
  type Account,
  type Address,
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  custom,
  type EIP1193RequestFn,
  getAddress,
  type Hex,
  http,
  type PublicClient,
  type TestClient,
  type Transport,
  toHex,
  type WalletClient
} from "viem"
import { mnemonicToAccount } from "viem/accounts"
import { hardhat } from "viem/chains"

export interface LocalChainOptions {
  /** Also serve the chain as JSON-RPC over HTTP/WebSocket (port 0 or absent: a free port). */
  readonly serve?: { readonly hostname?: string; readonly port?: number }
}

/** An EIP-1193 provider reduced to `request`: all viem's `custom` transport needs. */
export interface LocalChainProvider {
  readonly request: EIP1193RequestFn
}

export interface LocalChain {
  /** Reads and `eth_call`s: balances, `readContract`, logs, receipts, gas estimates. */
  readonly publicClient: PublicClient<Transport, Chain>
  /** One wallet client per funded account, in `accounts` order; `walletClients[0]` is the deployer. */
  readonly walletClients: ReadonlyArray<WalletClient<Transport, Chain, Account>>
  /** Hardhat test actions: mine, setBalance, impersonateAccount, snapshot/revert, increaseTime. */
  readonly testClient: TestClient<"hardhat", Transport, Chain>
  /** The 20 funded accounts. */
  readonly accounts: ReadonlyArray<Address>
  /** Their private keys (Hardhat's public test mnemonic): for code that signs locally, like the SDK. */
  readonly privateKeys: ReadonlyArray<Hex>
  /** The chain's EIP-1193 `request`, for other code to build its own clients with `custom(provider)`. */
  readonly provider: LocalChainProvider
  /** The JSON-RPC URL when started with `serve`, otherwise undefined. */
  readonly url: string | undefined
  /** Stops the server (if any) and releases the chain. */
  readonly stop: () => Promise<void>
}

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")

// Short polling and no cache: blocks are mined instantly, so viem's 4 s defaults only add latency.
const clientParams = { chain: hardhat, pollingInterval: 50, cacheTime: 0 } as const

/** Starts a fresh local chain (its own state, independent of any other started before). */
export const startLocalChain = async (options: LocalChainOptions = {}): Promise<LocalChain> => {
  // A config of its own: the chain needs neither the project's compiler settings nor its plugins.
  const hre = await createHardhatRuntimeEnvironment({}, {}, projectRoot)

  let provider: LocalChainProvider
  let url: string | undefined
  let close: () => Promise<void>
  if (options.serve === undefined) {
    const connection = await hre.network.create()
    provider = { request: connection.provider.request.bind(connection.provider) as EIP1193RequestFn }
    close = () => connection.close()
  } else {
    // The server runs its own connection to a new chain; everything here reaches it over HTTP.
    const server = await hre.network.createServer(undefined, options.serve.hostname ?? "127.0.0.1", options.serve.port)
    const { address, port } = await server.listen()
    url = `http://${address}:${port}`
    provider = { request: http(url, { retryCount: 0 })({ chain: hardhat }).request }
    close = () => server.close()
  }

  // No retries: a local chain does not fail transiently, and viem would retry every revert 3 times.
  const transport = custom(provider, { retryCount: 0 })
  const publicClient = createPublicClient({ ...clientParams, transport })
  const accounts = (await createWalletClient({ ...clientParams, transport }).getAddresses()).map((a) => getAddress(a))
  const privateKeys = await derivePrivateKeys(hre.config.networks.default, accounts)
  const walletClients = accounts.map((address) => createWalletClient({ ...clientParams, account: address, transport }))
  const testClient = createTestClient({ ...clientParams, mode: "hardhat", transport })

  return { publicClient, walletClients, testClient, accounts, privateKeys, provider, url, stop: close }
}

/** Derives the accounts' keys from the network's HD config and checks they are the chain's accounts. */
const derivePrivateKeys = async (
  config: NetworkConfig | undefined,
  accounts: ReadonlyArray<Address>
): Promise<Array<Hex>> => {
  if (config?.type !== "edr-simulated" || Array.isArray(config.accounts)) {
    throw new Error("The local chain is expected to use Hardhat's default HD accounts")
  }
  const hd = config.accounts
  const mnemonic = await hd.mnemonic.get()
  const passphrase = await hd.passphrase.get()
  return accounts.map((address, i) => {
    const account = mnemonicToAccount(mnemonic, {
      path: `${hd.path}/${hd.initialIndex + i}` as `m/44'/60'/${string}`,
      ...(passphrase === "" ? {} : { passphrase })
    })
    if (account.address !== address) throw new Error(`Local chain account ${i} is not derived from its mnemonic`)
    const key = account.getHdKey().privateKey
    if (key === null) throw new Error(`No private key for local chain account ${i}`)
    return toHex(key)
  })
}
