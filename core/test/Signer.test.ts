/**
 * `Signer` from a private key, a viem account, a wallet client and an EIP-1193 provider: the
 * address is lower-cased, the signature is EIP-191 and verifies, failures are `SignerError`, and a
 * private key never shows in errors or logs.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Layer, Redacted } from "effect"
import { createWalletClient, custom, type EIP1193Provider, toHex, verifyMessage } from "viem"
import type { SignerError } from "../src/Errors.ts"
import * as Signer from "../src/Signer.ts"
import { alice, keys } from "./support/accounts.ts"

const privateKey = keys.alice
const message = "Please sign this message to prove you are owner of this account: 5b1c0a4e"

/** A minimal EIP-1193 wallet backed by alice's key; records the RPC methods it was asked. */
const fakeWallet = (
  options: {
    readonly accounts?: ReadonlyArray<string>
    readonly rejectSigning?: boolean
    /** Like Hardhat or anvil: only `eth_accounts`. */
    readonly noRequestAccounts?: boolean
    readonly rejectConnect?: boolean
  } = {}
) => {
  const calls: Array<{ method: string; params: unknown }> = []
  const provider = {
    request: async ({ method, params }: { method: string; params?: unknown }) => {
      calls.push({ method, params })
      switch (method) {
        case "eth_requestAccounts":
          if (options.rejectConnect) throw Object.assign(new Error("User rejected the request."), { code: 4001 })
          if (options.noRequestAccounts)
            throw Object.assign(new Error("Method eth_requestAccounts is not supported"), { code: -32004 })
          return options.accounts ?? [alice.address]
        case "eth_accounts":
          return options.accounts ?? [alice.address]
        case "personal_sign": {
          if (options.rejectSigning) throw Object.assign(new Error("User rejected the request."), { code: 4001 })
          const [data] = params as [`0x${string}`, string]
          return alice.signMessage({ message: { raw: data } })
        }
        default:
          throw new Error(`unsupported ${method}`)
      }
    }
  } as unknown as EIP1193Provider
  return { provider, calls }
}

const signsAsAlice = (signer: Signer.Service) =>
  Effect.gen(function* () {
    assert.strictEqual(signer.address, alice.address.toLowerCase())
    const signature = yield* signer.signMessage(message)
    assert.match(signature, /^0x[0-9a-f]{130}$/)
    assert.isTrue(yield* Effect.promise(() => verifyMessage({ address: alice.address, message, signature })))
    assert.strictEqual(signature, yield* Effect.promise(() => alice.signMessage({ message })))
  })

describe("Signer", () => {
  it.effect("fromPrivateKey: with or without 0x, as a string or Redacted", () =>
    Effect.gen(function* () {
      for (const key of [privateKey, privateKey.slice(2), Redacted.make(privateKey)]) {
        yield* signsAsAlice(yield* Signer.Signer.pipe(Effect.provide(Signer.layerFromPrivateKey(key))))
      }
    })
  )

  it.effect("fromPrivateKey: a malformed key is a typed error that does not contain it", () =>
    Effect.gen(function* () {
      const bad = `${privateKey.slice(0, -1)}z`
      const error = yield* Effect.flip(Signer.Signer.pipe(Effect.provide(Signer.layerFromPrivateKey(bad))))
      assert.strictEqual(error._tag, "InvalidPrivateKey")
      assert.strictEqual(error.message, "Private key must be 64 hex characters")
      assert.notInclude(JSON.stringify(error), bad.slice(2, 20))
      assert.notInclude(String(error), bad.slice(2, 20))
    })
  )

  it.effect("fromAccount: a viem LocalAccount", () =>
    Effect.gen(function* () {
      yield* signsAsAlice(yield* Signer.Signer.pipe(Effect.provide(Signer.layerFromAccount(alice))))
    })
  )

  it.effect("fromWalletClient: a client with a local account signs in process", () =>
    Effect.gen(function* () {
      const { provider, calls } = fakeWallet()
      const client = createWalletClient({ account: alice, transport: custom(provider) })
      yield* signsAsAlice(yield* Signer.Signer.pipe(Effect.provide(Signer.layerFromWalletClient(client))))
      assert.deepStrictEqual(calls, [])
    })
  )

  it.effect("fromWalletClient without an account / fromEip1193: eth_requestAccounts, then personal_sign", () =>
    Effect.gen(function* () {
      const viaClient = fakeWallet()
      const client = createWalletClient({ transport: custom(viaClient.provider) })
      yield* signsAsAlice(yield* Signer.Signer.pipe(Effect.provide(Signer.layerFromWalletClient(client))))

      const { provider, calls } = fakeWallet()
      yield* signsAsAlice(yield* Signer.Signer.pipe(Effect.provide(Signer.layerFromEip1193(provider))))
      assert.deepStrictEqual(
        calls.map((c) => c.method),
        ["eth_requestAccounts", "personal_sign"]
      )
      // personal_sign gets the message as hex and the address.
      assert.deepStrictEqual(calls[1]!.params, [toHex(message), alice.address])
    })
  )

  it.effect(
    "fromEip1193: no account is `SignerError` (requestAddresses); a refusal is `SignerError` (signMessage)",
    () =>
      Effect.gen(function* () {
        const none = yield* Effect.flip(
          Signer.Signer.pipe(Effect.provide(Signer.layerFromEip1193(fakeWallet({ accounts: [] }).provider)))
        )
        assert.strictEqual(none._tag, "SignerError")
        assert.strictEqual(none.message, "Signer failed to requestAddresses")

        const signer = yield* Signer.Signer.pipe(
          Effect.provide(Signer.layerFromEip1193(fakeWallet({ rejectSigning: true }).provider))
        )
        const refused = (yield* Effect.flip(signer.signMessage(message))) as SignerError
        assert.strictEqual(refused.message, "Signer failed to signMessage")
        assert.include(String((refused.cause as Error).message), "User rejected the request.")
      })
  )

  it.effect(
    "fromEip1193: a provider without eth_requestAccounts falls back to eth_accounts; a user refusal does not",
    () =>
      Effect.gen(function* () {
        const node = fakeWallet({ noRequestAccounts: true })
        yield* signsAsAlice(yield* Signer.Signer.pipe(Effect.provide(Signer.layerFromEip1193(node.provider))))
        assert.deepStrictEqual(
          node.calls.map((c) => c.method),
          ["eth_requestAccounts", "eth_accounts", "personal_sign"]
        )
        const refusing = fakeWallet({ rejectConnect: true })
        const error = yield* Effect.flip(Signer.Signer.pipe(Effect.provide(Signer.layerFromEip1193(refusing.provider))))
        assert.strictEqual(error.message, "Signer failed to requestAddresses")
        assert.deepStrictEqual(
          refusing.calls.map((c) => c.method),
          ["eth_requestAccounts"]
        )
      })
  )

  it.effect("the service is swappable: the same program runs over any layer", () =>
    Effect.gen(function* () {
      const program = Effect.gen(function* () {
        const signer = yield* Signer.Signer
        return yield* signer.signMessage(message)
      })
      const layers: ReadonlyArray<Layer.Layer<Signer.Signer, unknown>> = [
        Signer.layerFromPrivateKey(privateKey),
        Signer.layerFromAccount(alice),
        Signer.layerFromEip1193(fakeWallet().provider)
      ]
      const signatures = new Set<string>()
      for (const layer of layers) signatures.add(yield* program.pipe(Effect.provide(layer), Effect.orDie))
      assert.strictEqual(signatures.size, 1)
    })
  )
})
