/**
 * The world the simulation runs in, built by its setup steps: the in-process Hardhat chain with
 * the payment contract, two stablecoins and the EIP-3009 `TestUsdc` (for x402) deployed, the mock
 * network answering the provider's hosts through msw in this process, four wallets (owner, friend, condition holder, stranger), and
 * the library's layer wired to both: HTTP to the mock hosts, payments to the in-process chain.
 *
 * Everything is released with the scope: msw stops intercepting, the chain is closed.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Context, Effect, Layer, Schema, type Scope } from "effect"
import { Chain, type Lighthouse, Networks, Signer } from "lighthouse-effect"
import { deployLocal, type LocalDeployment, localTokens, mockStablecoinAbi } from "lighthouse-effect/contracts"
import type { MockNetwork } from "lighthouse-effect/mocks"
import { chainOptions } from "lighthouse-effect/mocks"
import { type LocalChain, startLocalChain } from "lighthouse-effect/mocks/chain"
import { startMockNetwork } from "lighthouse-effect/mocks/node"
import * as LighthouseNode from "lighthouse-effect/node"
import type { SetupServer } from "msw/node"
import { type Address, custom, type Hex } from "viem"
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts"
import type { Header } from "./Report.ts"
import { type Recorder, type StepFailed, step } from "./Step.ts"

// =============================================================================
// Models
// =============================================================================

export type Role = "owner" | "friend" | "holder" | "stranger"

/** A funded account of the local chain, with what the library needs to act as it. */
export interface Wallet {
  readonly role: Role
  /** Checksummed. */
  readonly address: Address
  readonly privateKey: Hex
  readonly account: PrivateKeyAccount
  /** Signs auth messages for API keys and JWTs. */
  readonly signer: Signer.Service
}

export interface Environment {
  readonly chain: LocalChain
  readonly chainId: number
  readonly deployment: LocalDeployment
  readonly network: MockNetwork
  /** msw's interceptor, to watch the requests the library makes. */
  readonly server: SetupServer
  readonly wallets: Readonly<Record<Role, Wallet>>
  /** A temporary directory for the files the flows upload and download; removed at the end. */
  readonly dir: string
  /**
   * Every secret the run used: the chain's private keys, each credential the library sent
   * (API keys, JWTs, signatures), each JWT pair the key nodes issued, each file key recovered.
   * Never printed: a test checks that none of them shows in the output.
   */
  readonly secrets: Set<string>
  /** Moves the mock network's clock forward (it runs with the wall clock, `ms` ahead). */
  readonly advanceClock: (ms: number) => void
}

/** The environment, for the flows. */
export class Env extends Context.Service<Env, Environment>()("lighthouse-effect/scripts/simulate/Env") {}

/** A call to the chain outside the library (minting, balances) failed. */
export class ChainCallFailed extends Schema.TaggedError<ChainCallFailed>()("ChainCallFailed", {
  message: Schema.String
}) {}

/** A helper of the mock network (sync, deals) failed. */
export class MockCallFailed extends Schema.TaggedError<MockCallFailed>()("MockCallFailed", {
  message: Schema.String
}) {}

const reason = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

/** Records per page of the uploads list: small, so listing walks several pages. */
export const pageSize = 4

/** Gateways the network serves besides its own, for a download from several sources (flow `sources`). */
export const sourceGateways: ReadonlyArray<string> = [
  "https://gw-a.example",
  "https://gw-liar.example",
  "https://gw-c.example"
]

// Account 0 deploys (and owns the contract); the users are the next four.
const roles: ReadonlyArray<Role> = ["owner", "friend", "holder", "stranger"]

/** The accounts that settle x402 payments (and pay their gas) and are paid by them. */
export const x402SettlerIndex = 18
export const x402PayeeIndex = 19

// =============================================================================
// Setup
// =============================================================================

/** Adds the credentials of every request and the JWT pairs of every answer to `secrets`. */
const watchSecrets = (server: SetupServer, secrets: Set<string>) => {
  server.events.on("request:start", ({ request }) => {
    const credential = request.headers.get("authorization")?.replace(/^Bearer\s+/i, "")
    if (credential) secrets.add(credential)
  })
  server.events.on("response:mocked", ({ response }) => {
    void response
      .clone()
      .text()
      .then((text) => {
        for (const match of text.matchAll(/"(?:token|refreshToken|accessToken|apiKey)"\s*:\s*"([^"]+)"/g))
          secrets.add(match[1]!)
      })
  })
}

/** The setup steps: chain, contracts, mock network, wallets. Released with the scope. */
/** The step that starts the in-process chain (stopped with the scope) and reads its id. */
const startChain = step(
  "setup.chain",
  "start the local chain",
  Effect.gen(function* () {
    const started = yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => startLocalChain(), catch: (e) => new ChainCallFailed({ message: reason(e) }) }),
      (running) => Effect.promise(() => running.stop())
    )
    const id = yield* Effect.tryPromise({
      try: () => started.publicClient.getChainId(),
      catch: (e) => new ChainCallFailed({ message: reason(e) })
    })
    return { chain: started, chainId: id }
  }),
  ({ chain: started, chainId: id }) =>
    `Hardhat EDR in process, chain id ${id}, ${started.accounts.length} funded accounts`
)

export const setup: Effect.Effect<Environment, StepFailed, Scope.Scope | Recorder> = Effect.gen(function* () {
  const { chain, chainId } = yield* startChain

  const deployment = yield* step(
    "setup.deploy",
    "deploy payment contract + tokens",
    Effect.tryPromise({
      try: () => deployLocal(chain.walletClients[0]!, chain.publicClient),
      catch: (e) => new ChainCallFailed({ message: reason(e) })
    }),
    (d) => `LighthousePayment ${d.payment}, USDC ${d.usdc} (6 dec), DAI ${d.dai} (18 dec)`
  )

  // The network's clock: the wall clock, moved ahead when a flow needs time to pass (a PDP deal).
  let clockOffsetMs = 0
  const network = yield* step(
    "setup.network",
    "start the mock network",
    Effect.acquireRelease(
      Effect.sync(() =>
        startMockNetwork({
          pageSize,
          gateways: sourceGateways,
          clock: () => Date.now() + clockOffsetMs,
          // The API credits `ReceivedPayment` events of this contract; key nodes read balances here;
          // x402 uploads are settled in the deployment's TestUsdc by accounts no flow signs with.
          ...chainOptions(chain.publicClient, deployment, {
            settler: chain.walletClients[x402SettlerIndex]!,
            payTo: chain.accounts[x402PayeeIndex]!
          }),
          // Chain traffic stays in process: any HTTP request the mock does not answer is a bug.
          onUnhandledFrame: "error"
        })
      ),
      (running) => Effect.sync(() => running.close())
    ),
    (running) => `msw answering ${Object.keys(running.network.hosts).length} hosts, ${pageSize} uploads per page`
  )

  const wallets = yield* step(
    "setup.wallets",
    "create wallets",
    Effect.sync(() => {
      const entries = roles.map((role, i): [Role, Wallet] => {
        const privateKey = chain.privateKeys[i + 1]!
        const account = privateKeyToAccount(privateKey)
        return [role, { role, address: account.address, privateKey, account, signer: Signer.makeFromAccount(account) }]
      })
      return Object.fromEntries(entries) as Record<Role, Wallet>
    }),
    (made) =>
      Object.values(made)
        .map((w) => `${w.role} ${w.address.slice(0, 8)}…`)
        .join(", ")
  )

  const dir = yield* Effect.acquireRelease(
    Effect.promise(() => fs.mkdtemp(nodePath.join(os.tmpdir(), "lighthouse-simulate-"))),
    (path) => Effect.promise(() => fs.rm(path, { recursive: true, force: true }))
  )

  const secrets = new Set<string>(chain.privateKeys)
  yield* Effect.sync(() => watchSecrets(network.server, secrets))

  const advanceClock = (ms: number) => {
    clockOffsetMs += ms
  }
  return {
    chain,
    chainId,
    deployment,
    network: network.network,
    server: network.server,
    wallets,
    dir,
    secrets,
    advanceClock
  }
})

// =============================================================================
// The library
// =============================================================================

/**
 * Every service of the library (Node), on the mock hosts, paying on the in-process chain.
 * `mode` is the key-node policy; the configured default is sequential with 1 s pauses.
 */
export const libraryLayer = (
  env: Environment,
  nodes: { readonly mode: "sequential" | "concurrent" }
): Layer.Layer<Lighthouse.Services> =>
  LighthouseNode.layer({
    nodes,
    defaultNetwork: "localhost",
    // The addresses are checksummed by viem; the table's schema brands them.
    networks: Networks.withLocalDeployment({
      paymentContract: env.deployment.payment,
      usdc: { address: env.deployment.usdc, decimals: localTokens.usdc.decimals },
      dai: { address: env.deployment.dai, decimals: localTokens.dai.decimals }
    } as Parameters<typeof Networks.withLocalDeployment>[0])
  }).pipe(
    Layer.provide(Layer.succeed(Chain.ChainTransport, () => custom(env.chain.provider, { retryCount: 0 }))),
    // No standalone LighthouseConfig is built with it, so its ConfigConflict cannot happen.
    Layer.orDie
  )

/** The report's header for this environment. */
export const header = (env: Environment, mode: "sequential" | "concurrent", note: string): Header => ({
  chainId: env.chainId,
  contracts: {
    LighthousePayment: env.deployment.payment,
    USDC: env.deployment.usdc,
    DAI: env.deployment.dai,
    TestUsdc: env.deployment.x402Usdc
  },
  wallets: Object.fromEntries(Object.values(env.wallets).map((w) => [w.role, w.address])),
  nodePolicy: { mode, note },
  hosts: env.network.hosts
})

// =============================================================================
// Outside the library: the token faucet and the mock's own helpers
// =============================================================================

/**
 * Mints `amount` of a local stablecoin to `to` (the tokens have an open faucet; the EIP-3009
 * `TestUsdc` has the same `mint(to, amount)`).
 */
export const mint = Effect.fnUntraced(function* (
  token: Address,
  to: Address,
  amount: bigint
): Effect.fn.Return<void, ChainCallFailed, Env> {
  const { chain } = yield* Env
  yield* Effect.tryPromise({
    try: async () => {
      const hash = await chain.walletClients[0]!.writeContract({
        address: token,
        abi: mockStablecoinAbi,
        functionName: "mint",
        args: [to, amount]
      })
      const receipt = await chain.publicClient.waitForTransactionReceipt({ hash })
      if (receipt.status !== "success") throw new Error(`mint reverted in ${hash}`)
    },
    catch: (e) => new ChainCallFailed({ message: reason(e) })
  })
})

/** Runs a helper of the mock network (it stands in for the provider's back office). */
export const mock = Effect.fnUntraced(function* <A>(
  run: (network: MockNetwork) => Promise<A>
): Effect.fn.Return<A, MockCallFailed, Env> {
  const { network } = yield* Env
  return yield* Effect.tryPromise({ try: () => run(network), catch: (e) => new MockCallFailed({ message: reason(e) }) })
})
