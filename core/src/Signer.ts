/**
 * `Signer`: the one identity the key nodes and the API know a caller by, an EVM address, and the
 * EIP-191 (`personal_sign`) signature of a text message by it.
 *
 * The same services run in a backend and in a browser because only this service changes:
 * - `layerFromPrivateKey` — a raw key, kept `Redacted` and turned into a viem local account;
 * - `layerFromAccount` — any viem `LocalAccount` (private key, mnemonic, HD key, custom signer);
 * - `layerFromWalletClient` — a viem `WalletClient` (JSON-RPC account or local account);
 * - `layerFromEip1193` — any EIP-1193 provider (`window.ethereum`, WalletConnect…), through viem's
 *   `custom` transport; the address comes from `eth_requestAccounts`.
 *
 * The address is always lower-cased: the key nodes key accounts by the lower-cased form.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
// viem is imported where a signer is built, not here: a program that only checks or passes a
// signer (a command line's upload with an API key) then loads none of it (about 400 KB).
import type { Account, Chain, LocalAccount, Transport, WalletClient } from "viem"
import { type InvalidPrivateKey, SignerError } from "./Errors.ts"
import { parsePrivateKey } from "./schema/Address.ts"
import { type Address, type Service, Signer } from "./signer/Service.ts"

// =============================================================================
// Service
// =============================================================================

export { type Address, type Service, ServiceSchema, Signer } from "./signer/Service.ts"

// =============================================================================
// Constructors
// =============================================================================

const lower = (address: string): Address => address.toLowerCase() as Address

/**
 * A signer over a viem `LocalAccount`: signing happens in process.
 *
 * @category constructors
 */
export const makeFromAccount = (account: LocalAccount): Service => ({
  address: lower(account.address),
  signMessage: Effect.fn("Signer.signMessage")(function* (message: string) {
    return yield* Effect.tryPromise({
      try: () => account.signMessage({ message }),
      catch: (cause) => new SignerError({ operation: "signMessage", cause })
    })
  })
})

/**
 * A signer from a raw private key (64 hex, `0x` optional). The key is held only inside viem's
 * account and as `Redacted`: it never shows in logs, spans or errors.
 *
 * @category constructors
 */
export const makeFromPrivateKey = Effect.fn("Signer.fromPrivateKey")(function* (
  key: string | Redacted.Redacted<string>
): Effect.fn.Return<Service, InvalidPrivateKey> {
  const privateKey = yield* parsePrivateKey(key)
  const { privateKeyToAccount } = yield* Effect.promise(() => import("viem/accounts"))
  return makeFromAccount(privateKeyToAccount(Redacted.value(privateKey)))
})

/** EIP-1193 "user rejected the request": never retried another way. */
const userRejected = (cause: unknown) =>
  typeof cause === "object" && cause !== null && "code" in cause && cause.code === 4001

/**
 * The wallet's first address: `eth_requestAccounts` (a browser wallet asks the user to connect);
 * providers without it (Hardhat, anvil, plain JSON-RPC nodes) fall back to `eth_accounts`.
 */
const connect = (walletClient: WalletClient<Transport, Chain | undefined, Account | undefined>) =>
  Effect.tryPromise({
    try: async () => {
      const addresses = await walletClient.requestAddresses().catch(async (cause: unknown) => {
        if (userRejected(cause)) throw cause
        const fallback = await walletClient.getAddresses().catch(() => {
          throw cause
        })
        return fallback
      })
      const [first] = addresses
      if (first === undefined) throw new Error("the wallet returned no address")
      return first
    },
    catch: (cause) => new SignerError({ operation: "requestAddresses", cause })
  })

/**
 * Any viem wallet client, with or without a chain and an account.
 *
 * @category models
 */
export type AnyWalletClient = WalletClient<Transport, Chain | undefined, Account | undefined>

/**
 * A signer over a viem `WalletClient`. Uses the client's account when it has one, else the first
 * address of `eth_requestAccounts` (which prompts a browser wallet to connect), or of
 * `eth_accounts` where the provider has no `eth_requestAccounts`.
 *
 * @category constructors
 */
export const makeFromWalletClient: (walletClient: AnyWalletClient) => Effect.Effect<Service, SignerError> = Effect.fn(
  "Signer.fromWalletClient"
)(function* (walletClient: AnyWalletClient): Effect.fn.Return<Service, SignerError> {
  const account: Account | Address = walletClient.account ?? (yield* connect(walletClient))
  const address = lower(typeof account === "string" ? account : account.address)
  return {
    address,
    signMessage: Effect.fn("Signer.signMessage")(function* (message: string) {
      return yield* Effect.tryPromise({
        try: () => walletClient.signMessage({ account, message }),
        catch: (cause) => new SignerError({ operation: "signMessage", cause })
      })
    })
  }
})

/**
 * What `layerFromEip1193` needs of a provider: its `request` method (events are not used), so a
 * browser wallet, WalletConnect, or a node's provider (Hardhat, anvil) all fit.
 *
 * @category models
 */
export type Eip1193Requester = { readonly request: (...args: never) => Promise<unknown> }

/**
 * A signer over an EIP-1193 provider (a browser wallet, WalletConnect, Hardhat's provider…).
 *
 * @category constructors
 */
export const makeFromEip1193 = (provider: Eip1193Requester): Effect.Effect<Service, SignerError> =>
  Effect.promise(() => import("viem")).pipe(
    Effect.flatMap(({ createWalletClient, custom }) =>
      makeFromWalletClient(createWalletClient({ transport: custom(provider) }))
    )
  )

// =============================================================================
// Layers
// =============================================================================

/**
 * The signer of a raw private key.
 *
 * @category layers
 */
export const layerFromPrivateKey = (key: string | Redacted.Redacted<string>): Layer.Layer<Signer, InvalidPrivateKey> =>
  Layer.effect(Signer, makeFromPrivateKey(key))

/**
 * The signer of a viem `LocalAccount`.
 *
 * @category layers
 */
export const layerFromAccount = (account: LocalAccount): Layer.Layer<Signer> =>
  Layer.succeed(Signer, makeFromAccount(account))

/**
 * The signer of a viem `WalletClient`.
 *
 * @category layers
 */
export const layerFromWalletClient = (
  walletClient: WalletClient<Transport, Chain | undefined, Account | undefined>
): Layer.Layer<Signer, SignerError> => Layer.effect(Signer, makeFromWalletClient(walletClient))

/**
 * The signer of an EIP-1193 provider.
 *
 * @category layers
 */
export const layerFromEip1193 = (provider: Eip1193Requester): Layer.Layer<Signer, SignerError> =>
  Layer.effect(Signer, makeFromEip1193(provider))
