/**
 * The chains the payment contract lives on, with their chain ids and tokens, as validated data.
 *
 * Figures are the provider's own configuration (its SDK's network table),
 * with its inconsistent decimal keys (`usd_contract_decimal`, `usdt_contract_decimal`…)
 * folded into one shape: each token has its address and decimals side by side.
 * `localhost` is the local chain of the offline network, filled from a deployment.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { EvmAddress } from "./schema/Address.ts"

/**
 * The stablecoins a payment can be made in.
 *
 * @category schemas
 */
export const TokenSymbol = Schema.Literals(["usdt", "usdc", "dai"])
/** @category models */
export type TokenSymbol = typeof TokenSymbol.Type

/** @category schemas */
export const Token = Schema.Struct({
  address: EvmAddress,
  decimals: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 36 }))
})
/** @category models */
export type Token = typeof Token.Type

/** @category schemas */
export const Network = Schema.Struct({
  symbol: Schema.NonEmptyString,
  rpc: Schema.NonEmptyString,
  /** Explorer prefix a transaction hash is appended to. */
  scan: Schema.String,
  chainId: Schema.Int.check(Schema.isGreaterThan(0)),
  paymentContract: EvmAddress,
  tokens: Schema.Struct({
    usdt: Schema.optionalKey(Token),
    usdc: Schema.optionalKey(Token),
    dai: Schema.optionalKey(Token)
  }),
  /** Given for some chains only in the provider's table; the price of the native coin needs it. */
  nativeDecimals: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 36 })))
})
/** @category models */
export type Network = typeof Network.Type

/** @category schemas */
export const NetworkName = Schema.Literals([
  "fantom",
  "polygon",
  "binance",
  "optimism",
  "filecoin",
  "calibration",
  "fantom-testnet",
  "polygon-testnet",
  "binance-testnet",
  "optimism-testnet",
  "wallaby-testnet",
  "localhost"
])
/** @category models */
export type NetworkName = typeof NetworkName.Type

/** @category schemas */
export const NetworkTable = Schema.Record(Schema.String, Network)
/** @category models */
export type NetworkTable = typeof NetworkTable.Type

/** @category constants */
export const defaultNetwork: NetworkName = "polygon"

const token = (address: string, decimals: number) => ({ address: address as EvmAddress, decimals })
const address = (value: string) => value as EvmAddress

/**
 * The provider's 11 chains with every figure the provider configures, plus `localhost`.
 *
 * @category constants
 */
export const networks: Readonly<Record<NetworkName, Network>> = {
  fantom: {
    symbol: "FTM",
    rpc: "https://rpc.ftm.tools/",
    scan: "https://ftmscan.com/tx/",
    chainId: 250,
    paymentContract: address("0xf468602B34C482f34ca498D9a0DE7957539961d3"),
    tokens: {
      usdt: token("0x049d68029688eAbF473097a2fC38ef61633A3C7A", 6),
      usdc: token("0x04068DA6C83AFCFA0e13ba15A6696662335D5B75", 6),
      dai: token("0x8D11eC38a3EB5E956B052f67Da8Bdc9bef8Abf3E", 18)
    }
  },
  polygon: {
    symbol: "MATIC",
    rpc: "https://polygon-rpc.com",
    scan: "https://polygonscan.com/tx/",
    chainId: 137,
    paymentContract: address("0xaD13C488b01DbcE976B67e552Bd352e824E53E1D"),
    tokens: {
      usdt: token("0xc2132D05D31c914a87C6611C10748AEb04B58e8F", 6),
      usdc: token("0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174", 6),
      dai: token("0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063", 18)
    },
    nativeDecimals: 18
  },
  binance: {
    symbol: "BNB",
    rpc: "https://bsc-dataseed.binance.org/",
    scan: "https://bscscan.com/tx/",
    chainId: 56,
    paymentContract: address("0x340ff23c060626644e55fc10298c5e995b1f41c1"),
    tokens: {
      usdt: token("0x55d398326f99059fF775485246999027B3197955", 18),
      usdc: token("0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d", 18),
      dai: token("0x1dC56F2705Ff2983f31fb5964CC3E19749A7CBA7", 18)
    }
  },
  optimism: {
    symbol: "ETH",
    rpc: "https://mainnet.optimism.io",
    scan: "https://optimistic.etherscan.io/tx/",
    chainId: 10,
    paymentContract: address("0x61e296fdc8c498ed183a2d19fd5927736e46e3b6"),
    tokens: {
      usdt: token("0x94b008aA00579c1307B0EF2c499aD98a8ce58e58", 6),
      usdc: token("0x7F5c764cBc14f9669B88837ca1490cCa17c31607", 6),
      dai: token("0xDA10009cBd5D07dd0CeCc66161FC93D7c9000da1", 18)
    }
  },
  filecoin: {
    symbol: "FIL",
    rpc: "https://api.node.glif.io",
    scan: "https://filfox.info/en/message/",
    chainId: 314,
    paymentContract: address("0x1ed0f8B8736c7835a1ee54D791cda7ADA3cd5e94"),
    // axlUSDC, the only stablecoin the provider lists on Filecoin.
    tokens: { usdc: token("0xEB466342C4d449BC9f53A865D5Cb90586f405215", 6) },
    nativeDecimals: 18
  },
  calibration: {
    symbol: "FIL",
    rpc: "https://api.calibration.node.glif.io/rpc/v1",
    scan: "https://calibration.filfox.info/en/message/",
    chainId: 314159,
    paymentContract: address("0x808a85bbFD82369A3B0c6eFFd4Be1d475F05a6a0"),
    tokens: { usdt: token("0xA471B7936906fF810865e52AF86C12B9865C850A", 18) },
    nativeDecimals: 18
  },
  "fantom-testnet": {
    symbol: "FTM",
    rpc: "https://rpc.testnet.fantom.network/",
    scan: "https://testnet.ftmscan.com/tx/",
    chainId: 0xfa2,
    paymentContract: address("0xa02d3813b7334057dDbDa6Fe559b90280078bAD9"),
    tokens: {}
  },
  "polygon-testnet": {
    symbol: "MATIC",
    rpc: "https://rpc-mumbai.maticvigil.com/",
    scan: "https://mumbai.polygonscan.com/tx/",
    chainId: 80001,
    paymentContract: address("0x90c5ab8d2418a3855dBAFd8131bf0274f6Ea431F"),
    tokens: { usdc: token("0x742DfA5Aa70a8212857966D491D67B09Ce7D6ec7", 6) }
  },
  "binance-testnet": {
    symbol: "BNB",
    rpc: "https://data-seed-prebsc-1-s1.binance.org:8545/",
    scan: "https://testnet.bscscan.com/tx/",
    chainId: 97,
    paymentContract: address("0x53f4a7d35AcDc5024587c5fA1E3bEcC6233888E9"),
    tokens: {}
  },
  "optimism-testnet": {
    symbol: "ETH",
    rpc: "https://kovan.optimism.io/",
    scan: "https://kovan-optimistic.etherscan.io/tx/",
    chainId: 69,
    paymentContract: address("0x61e296fdc8c498ed183a2d19fd5927736e46e3b6"),
    tokens: {}
  },
  "wallaby-testnet": {
    symbol: "tFIL",
    rpc: "https://wallaby.node.glif.io/rpc/v0",
    scan: "https://explorer.glif.io/",
    chainId: 31415,
    paymentContract: address("0x3C89b0a447A30b785CaF97791C9f9F60F7069C05"),
    tokens: {}
  },
  // Filled by `withLocalDeployment` once the contract is deployed on the local chain.
  localhost: {
    symbol: "ETH",
    rpc: "http://127.0.0.1:8545",
    scan: "",
    chainId: 31337,
    paymentContract: address("0x0000000000000000000000000000000000000000"),
    tokens: {},
    nativeDecimals: 18
  }
}

/**
 * Where the local deployment put the payment contract and its test stablecoins.
 *
 * @category models
 */
export interface LocalDeployment {
  readonly rpc?: string
  readonly paymentContract: string
  readonly usdc?: Token
  readonly usdt?: Token
  readonly dai?: Token
}

/**
 * The network table with `localhost` pointing at a deployment on the local chain.
 *
 * @category constructors
 */
export const withLocalDeployment = (deployment: LocalDeployment, table: NetworkTable = networks): NetworkTable => ({
  ...table,
  localhost: {
    ...networks.localhost,
    ...(deployment.rpc === undefined ? {} : { rpc: deployment.rpc }),
    paymentContract: address(deployment.paymentContract),
    tokens: {
      ...(deployment.usdt === undefined ? {} : { usdt: deployment.usdt }),
      ...(deployment.usdc === undefined ? {} : { usdc: deployment.usdc }),
      ...(deployment.dai === undefined ? {} : { dai: deployment.dai })
    }
  }
})
