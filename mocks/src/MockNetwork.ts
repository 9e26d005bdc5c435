/**
 * The whole local network in one value: msw handlers for the API host, the upload node, the
 * gateway and the 5 key nodes of the encryption host, over one shared in-memory state, plus the
 * helpers tests use to arrange that state.
 *
 * ```ts
 * const network = createMockNetwork()                  // the provider's production hosts
 * const server = setupServer(...network.handlers)      // or startMockNetwork() from ./node.ts
 * const { apiKey } = network.seedAccount(address, { dataLimit: 10 * 1024 * 1024 })
 * await network.simulateDeal(cid)                      // deal_status non-empty, get_proof 200
 * network.faults.down({ host: "gateway" })
 * network.reset()
 * ```
 *
 * Hosts default to the provider's production hosts, so unmodified clients (the provider's own SDK
 * included) talk to the mock once msw intercepts. The six hosts (with the Walrus upload node and gateway) must differ: each ends with a
 * 404 for paths it does not know.
 */

import { LighthouseConfig } from "lighthouse-effect"
import type { HttpHandler } from "msw"
import type { CID } from "multiformats/cid"
import { type Account, Accounts, type QuotaUpdate } from "./api/Accounts.ts"
import { apiHandlers } from "./api/ApiHost.ts"
import { type Deal, type DealOptions, Deals } from "./api/Deals.ts"
import { Files } from "./api/Files.ts"
import { IpnsKeys } from "./api/Ipns.ts"
import { Payments, type PaymentsOptions, type SyncResult } from "./api/Payments.ts"
import { PdpDeals } from "./api/PdpDeals.ts"
import { DefaultPrices, Tickers } from "./api/Tickers.ts"
import { WalrusBlobs } from "./api/WalrusBlobs.ts"
import { type Faults, type HostName, makeFaults } from "./faults/index.ts"
import { gatewayHandlers } from "./gateway/GatewayHost.ts"
import type { RouteErrorLog } from "./http/Guard.ts"
import { parseCid } from "./http/Request.ts"
import { cidOf, PublishedRecords } from "./ipns/PublishedRecords.ts"
import { type EvmChainSource, type KeyNodes, type KeyNodesOptions, makeKeyNodes } from "./keyNodes/index.ts"
import { restoreState, stateMirror } from "./Persistence.ts"
import type { BlockStorage } from "./storage/Blocks.ts"
import { ContentStore } from "./storage/ContentStore.ts"
import type { Mirror } from "./storage/Mirror.ts"
import type { StateStore } from "./storage/State.ts"
import { type SweepResult, sweepUnreferenced } from "./storage/Sweep.ts"
import type { PartialCars } from "./upload/CarLinks.ts"
import { uploadNodeHandlers } from "./upload/UploadNode.ts"
import { type X402Options, x402Handlers } from "./x402/UploadRoute.ts"

/** Base URLs of the hosts, without trailing slashes. */
export type MockHosts = Readonly<Record<HostName, string>> & {
  /** The Walrus upload node (faults scoped to host `node` reach it too). */
  readonly walrusNode: string
  /** The Walrus gateway (faults scoped to host `gateway` reach it too). */
  readonly walrusGateway: string
}

export interface MockNetworkOptions {
  /** Hosts to answer for. Default: the provider's production hosts (`DefaultHosts`). */
  readonly hosts?: Partial<MockHosts>
  /** Milliseconds since the epoch, for every timestamp, JWT and deal epoch. Default `Date.now`. */
  readonly clock?: () => number
  /** Records per `files_uploaded` page. Default 2000, as the provider documents. */
  readonly pageSize?: number
  /** Data limit of an account created without one, in bytes. Default 1 GiB. */
  readonly defaultDataLimit?: number
  /** Starting ticker prices (USD), replacing the defaults. */
  readonly tickers?: Readonly<Record<string, number>>
  /** Where storage payments are read from (`syncPayments`). */
  readonly payments?: PaymentsOptions
  /** Chain(s) EVM access conditions of the key nodes are evaluated against. */
  readonly chain?: EvmChainSource
  /** Pay-per-upload over x402 (`POST /api/x402/upload`): the token, payee and chain. Absent: 404. */
  readonly x402?: X402Options
  /** Key-node token lifetimes, and how long and how many sign-in messages are kept (`makeKeyNodes`). */
  readonly keyNodes?: Pick<
    KeyNodesOptions,
    "jwtTtlSeconds" | "refreshTtlSeconds" | "messageTtlSeconds" | "maxPendingMessages"
  >
  /** Share a fault registry with other code; a new one by default. */
  readonly faults?: Faults
  /**
   * Where blocks and state live. Default: blocks in memory, state in the registries only (gone with
   * the process). With `state`, the network starts from what it holds and writes every change
   * through (see `Persistence.ts`); `openNetworkStorage` (Node) gives both on disk.
   */
  readonly storage?: NetworkStorage
  /**
   * Who hears of a route that threw (a bug in the mock; the host answers a JSON 500 either way).
   * Default: nobody, so a passing test prints nothing; `logRouteErrorsToConsole` writes each one.
   */
  readonly logRouteErrors?: RouteErrorLog
  /**
   * More gateways (base URLs) serving the same content, each with a fault registry of its own
   * (`network.gateways`), to download from several sources at once: one lies, one is down… Their
   * faults are scoped `{ host: "gateway" }` in their own registry.
   */
  readonly gateways?: ReadonlyArray<string>
  /**
   * How the upload node's `dag/import` takes a CAR whose links reach blocks not in it: `accept`
   * (default) when the node holds them all, `refuse` always (a node that takes whole DAGs only).
   */
  readonly partialCars?: PartialCars
}

/** A gateway beside the network's own, with its own faults. */
export interface ExtraGateway {
  readonly url: string
  readonly faults: Faults
}

/** Blocks and state of a network (`memoryBlocks()` and no state store by default). */
export interface NetworkStorage {
  readonly blocks?: BlockStorage
  readonly state?: StateStore
}

export interface MockNetworkState {
  readonly accounts: Accounts
  /** The uploads list. */
  readonly files: Files
  /** Every block the upload node stored. */
  readonly content: ContentStore
  readonly deals: Deals
  readonly ipns: IpnsKeys
  readonly tickers: Tickers
  /** Present when `payments` was configured. */
  readonly payments: Payments | undefined
  readonly keyNodes: KeyNodes
  /** The blobs behind every CID stored on Walrus. */
  readonly walrus: WalrusBlobs
  /** IPNS records published from outside (`PUT /routing/v1/ipns/{name}`). */
  readonly published: PublishedRecords
  /** PDP deals requested (in memory only). */
  readonly pdp: PdpDeals
}

export interface SeedAccountOptions {
  /** Use this API key instead of a generated one. */
  readonly apiKey?: string
  readonly dataLimit?: number
  readonly dataUsed?: number
  /** Bytes the account may store on Walrus (0 for a new account). */
  readonly walrusDataLimit?: number
}

export interface MockNetwork {
  readonly hosts: MockHosts
  /** The gateways of the `gateways` option, in its order. */
  readonly gateways: ReadonlyArray<ExtraGateway>
  /** Every handler of every host; hand them to `setupServer` / `setupWorker`. */
  readonly handlers: ReadonlyArray<HttpHandler>
  readonly state: MockNetworkState
  readonly faults: Faults
  /** Creates (or tops up) the account of `address` and gives it an API key. */
  readonly seedAccount: (
    address: string,
    options?: SeedAccountOptions
  ) => { readonly address: string; readonly apiKey: string }
  readonly setQuota: (address: string, update: QuotaUpdate) => Account
  /**
   * Makes deals for stored content (`copies` defaults to the upload's `num_copies` deal parameter,
   * else 1). Afterwards `deal_status` lists them and `get_proof` answers 200.
   */
  readonly simulateDeal: (cid: string, options?: DealOptions) => Promise<ReadonlyArray<Deal>>
  readonly setTickerPrice: (symbol: string, priceUsd: number) => void
  /** Credits accounts from new `ReceivedPayment` events. Throws when `payments` was not configured. */
  readonly syncPayments: () => Promise<SyncResult>
  /** Back to an empty network: state, key nodes, ticker prices and faults. */
  readonly reset: () => void
  /**
   * Deletes the blocks no upload record or IPNS value reaches (left by an upload killed half-way,
   * or by deleted files); see `storage/Sweep.ts`. Only while nothing is uploading.
   */
  readonly collectGarbage: () => Promise<SweepResult>
  /** Where blocks and state are kept: `memory`, or a directory / database file. */
  readonly storage: { readonly blocks: string; readonly state: string }
  /** Closes the state store (a network on disk); the network must not be used afterwards. */
  readonly close: () => void
}

/** Every registry back to empty, ticker prices to those the network started with. */
const resetRegistries = (state: MockNetworkState, initialPrices: Readonly<Record<string, number>>) => {
  state.accounts.clear()
  state.files.clear()
  state.content.clear()
  state.deals.clear()
  state.ipns.clear()
  state.tickers.reset(initialPrices)
  state.payments?.reset()
  state.keyNodes.reset()
  state.walrus.reset()
  state.published.reset()
  state.pdp.clear()
}

/** What keeps blocks alive: every uploaded file, every name's current value. */
const rootsOf = (files: Files, ipns: IpnsKeys, published: PublishedRecords): Array<CID> => {
  const texts = [
    ...[...files.records()].map(([, record]) => record.cid),
    ...[...ipns.records()].flatMap(([, key]) => (key.cid === null ? [] : [key.cid]))
  ]
  return [
    ...texts.flatMap((text) => parseCid(text) ?? []),
    ...[...published.records()].flatMap(([, record]) => cidOf(record.value) ?? [])
  ]
}

/** `faults`, with `sync` run after every answer a host gives (the mirror's one transaction per request). */
const syncingAfterEachAnswer = (faults: Faults, sync: () => void): Faults => {
  const handle: Faults["handle"] = (context, answer) =>
    faults.handle(context, async () => {
      try {
        return await answer()
      } finally {
        sync()
      }
    })
  return {
    ...faults,
    handle,
    wrap: (host, resolver, nodeOf) => (info) =>
      handle({ host, node: nodeOf?.(info), request: info.request }, () => resolver(info))
  }
}

const trimHost = (host: string) => host.replace(/\/+$/, "")

/** The host URLs (the provider's by default), which must differ. */
const hostsOf = (options: MockNetworkOptions): MockHosts => {
  const hosts: MockHosts = {
    api: trimHost(options.hosts?.api ?? LighthouseConfig.DefaultHosts.api),
    node: trimHost(options.hosts?.node ?? LighthouseConfig.DefaultHosts.node),
    gateway: trimHost(options.hosts?.gateway ?? LighthouseConfig.DefaultHosts.gateway),
    encryption: trimHost(options.hosts?.encryption ?? LighthouseConfig.DefaultHosts.encryption),
    walrusNode: trimHost(options.hosts?.walrusNode ?? LighthouseConfig.DefaultHosts.walrusNode),
    walrusGateway: trimHost(options.hosts?.walrusGateway ?? LighthouseConfig.DefaultHosts.walrusGateway)
  }
  if (new Set(Object.values(hosts)).size !== 6) {
    throw new Error(`the six hosts must differ: ${JSON.stringify(hosts)}`)
  }
  return hosts
}

/** The extra gateways, each with its own faults; their URLs must differ from each other and from the hosts. */
const extraGatewaysOf = (options: MockNetworkOptions, hosts: MockHosts): ReadonlyArray<ExtraGateway> => {
  const urls = (options.gateways ?? []).map(trimHost)
  if (new Set([...Object.values(hosts), ...urls]).size !== 6 + urls.length) {
    throw new Error(`the extra gateways must differ from each other and from the hosts: ${JSON.stringify(urls)}`)
  }
  return urls.map((url) => ({ url, faults: makeFaults() }))
}

/** The key nodes on the encryption host, with the network's clock, faults and chain. */
const keyNodesOf = (options: MockNetworkOptions, host: string, clock: () => number, faults: Faults) =>
  makeKeyNodes({
    // Only the lifetimes and limits: what follows is the network's own.
    ...options.keyNodes,
    host,
    now: clock,
    faults,
    ...(options.logRouteErrors === undefined ? {} : { logRouteErrors: options.logRouteErrors }),
    ...(options.chain === undefined ? {} : { chain: options.chain })
  })

/** Every host's handlers over the network's registries. */
const networkHandlers = (
  hosts: MockHosts,
  r: Omit<MockNetworkState, "payments">,
  how: {
    readonly faults: Faults
    readonly pageSize: number
    readonly clock: () => number
    readonly log: RouteErrorLog | undefined
    readonly x402: X402Options | undefined
    readonly partialCars: PartialCars | undefined
  }
): ReadonlyArray<HttpHandler> => {
  const { accounts, files, content, deals, ipns, tickers, walrus, published, pdp } = r
  const { faults, pageSize, clock, log, x402, partialCars } = how
  return [
    // Before the API host's own routes, whose catch-all answers 404.
    ...(x402 === undefined ? [] : x402Handlers({ host: hosts.api, files, content, faults, x402, log, clock })),
    ...apiHandlers({
      host: hosts.api,
      accounts,
      files,
      deals,
      ipns,
      tickers,
      faults,
      pageSize,
      walrus,
      content,
      pdp,
      log
    }),
    ...uploadNodeHandlers({ host: hosts.node, accounts, files, content, faults, log, partialCars }),
    ...uploadNodeHandlers({ host: hosts.walrusNode, accounts, files, content, faults, walrus, log, partialCars }),
    ...gatewayHandlers({ host: hosts.gateway, content, files, ipns, published, faults, clock, log }),
    // The Walrus gateway is the same gateway, answering only for what Walrus holds.
    ...gatewayHandlers({
      host: hosts.walrusGateway,
      content,
      files,
      ipns,
      published,
      faults,
      clock,
      log,
      holds: (cid) => walrus.holds(`${cid}`)
    }),
    ...r.keyNodes.handlers
  ]
}

/** Creates (or tops up) an account and gives it an API key. */
const seedAccount = (accounts: Accounts, address: string, seed: SeedAccountOptions) => {
  const account = accounts.ensure(address)
  const update: QuotaUpdate = {
    ...(seed.dataLimit === undefined ? {} : { dataLimit: seed.dataLimit }),
    ...(seed.dataUsed === undefined ? {} : { dataUsed: seed.dataUsed }),
    ...(seed.walrusDataLimit === undefined ? {} : { walrusDataLimit: seed.walrusDataLimit })
  }
  accounts.setQuota(account.address, update)
  return { address: account.address, apiKey: accounts.addApiKey(account.address, seed.apiKey) }
}

/** Deals for stored content; `copies` defaults to the upload's `num_copies` deal parameter. */
const simulateDeal = async (files: Files, deals: Deals, cid: string, options: DealOptions) => {
  const parsed = parseCid(cid)
  if (parsed === undefined) throw new Error(`Invalid CID: ${cid}`)
  const requested = (files.byCid(cid)?.dealParameters as { num_copies?: unknown } | null | undefined)?.num_copies
  const copies =
    options.copies ?? (typeof requested === "number" && Number.isInteger(requested) ? requested : undefined)
  const made = await deals.simulate(parsed, cid, copies === undefined ? options : { ...options, copies })
  files.touch(cid, "active")
  return made
}

/** Every host's handlers: the extra gateways (each under its own faults) before the network's own. */
const allHandlers = (
  options: MockNetworkOptions,
  hosts: MockHosts,
  gateways: ReturnType<typeof extraGatewaysOf>,
  registries: Parameters<typeof networkHandlers>[1],
  how: { readonly faults: Faults; readonly pageSize: number; readonly clock: () => number }
) => {
  const { content, files, ipns, published } = registries
  const log = options.logRouteErrors
  return [
    ...gateways.flatMap((gateway) =>
      gatewayHandlers({
        host: gateway.url,
        content,
        files,
        ipns,
        published,
        faults: gateway.faults,
        clock: how.clock,
        log
      })
    ),
    ...networkHandlers(hosts, registries, { ...how, log, x402: options.x402, partialCars: options.partialCars })
  ]
}

export const createMockNetwork = (options: MockNetworkOptions = {}): MockNetwork => {
  const hosts = hostsOf(options)
  const pageSize = options.pageSize ?? 2000
  if (!(Number.isInteger(pageSize) && pageSize >= 1)) throw new RangeError(`pageSize must be >= 1, got ${pageSize}`)

  const clock = options.clock ?? Date.now
  const faults = options.faults ?? makeFaults()
  const store = options.storage?.state
  // Set once the registries exist; every answer of every host then writes its changes through.
  let mirror: Mirror | undefined
  const persist = () => {
    mirror?.sync()
  }
  const hostFaults = store === undefined ? faults : syncingAfterEachAnswer(faults, persist)
  const accounts = new Accounts(
    options.defaultDataLimit === undefined ? { clock } : { clock, defaultDataLimit: options.defaultDataLimit }
  )
  const files = new Files(clock)
  const content = new ContentStore(options.storage?.blocks)
  const deals = new Deals(content, clock)
  const ipns = new IpnsKeys(clock)
  const initialPrices = options.tickers ?? DefaultPrices
  const tickers = new Tickers(initialPrices)
  const payments = options.payments === undefined ? undefined : new Payments(options.payments, accounts, tickers)
  const keyNodes = keyNodesOf(options, hosts.encryption, clock, hostFaults)
  const walrus = new WalrusBlobs()
  const published = new PublishedRecords()
  const pdp = new PdpDeals(clock, hosts.gateway)

  if (store !== undefined) {
    const persisted = { accounts, files, ipns, deals, keyNodes, walrus, published }
    restoreState(store, persisted)
    mirror = stateMirror(store, persisted)
  }

  const registries = { accounts, files, content, deals, ipns, tickers, keyNodes, walrus, published, pdp }
  const gateways = extraGatewaysOf(options, hosts)
  const handlers = allHandlers(options, hosts, gateways, registries, { faults: hostFaults, pageSize, clock })

  const state = { accounts, files, content, deals, ipns, tickers, payments, keyNodes, walrus, published, pdp }
  return {
    hosts,
    gateways,
    handlers,
    state,
    faults,
    seedAccount: (address, seed = {}) => {
      const seeded = seedAccount(accounts, address, seed)
      persist()
      return seeded
    },
    setQuota: (address, update) => {
      const account = accounts.setQuota(address, update)
      persist()
      return account
    },
    simulateDeal: async (cid, dealOptions = {}) => {
      const made = await simulateDeal(files, deals, cid, dealOptions)
      persist()
      return made
    },
    setTickerPrice: (symbol, price) => tickers.set(symbol, price),
    syncPayments: () => {
      if (payments === undefined) return Promise.reject(new Error("payments were not configured"))
      return payments.sync().finally(persist)
    },
    reset: () => {
      resetRegistries(state, initialPrices)
      faults.clear()
      for (const gateway of gateways) gateway.faults.clear()
      if (store !== undefined) {
        store.clear()
        mirror?.forget()
      }
    },
    collectGarbage: () => sweepUnreferenced(content.blocks, rootsOf(files, ipns, published)),
    storage: { blocks: content.location, state: store?.location ?? "memory" },
    close: () => store?.close()
  }
}
