/**
 * The ABIs `Payment` speaks are the compiled contract's: every entry it declares is in the Hardhat
 * build of `LighthousePayment` (and OpenZeppelin's ERC-20 errors in the local stablecoin's), with
 * the same signature and indexed flags, and it names every custom error the contract can revert
 * with, so none reaches a caller undecoded.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { lighthousePaymentAbi, mockStablecoinAbi } from "lighthouse-effect/contracts"
import type { Abi } from "viem"
import { paymentAbi, tokenAbi } from "../../src/payment/Abi.ts"

type Parameter = {
  readonly type: string
  readonly indexed?: boolean | undefined
  readonly components?: ReadonlyArray<Parameter> | undefined
}

const types = (parameters: ReadonlyArray<Parameter>): string =>
  parameters
    .map((p) => `${p.components ? `(${types(p.components)})${p.type.slice(5)}` : p.type}${p.indexed ? " indexed" : ""}`)
    .join(",")

// Types, indexed flags, outputs and mutability: what the wire format and the selectors depend on.
const signature = (item: Abi[number]): string => {
  if (item.type === "function")
    return `function ${item.name}(${types(item.inputs)}) ${item.stateMutability} returns (${types(item.outputs)})`
  if (item.type === "event" || item.type === "error") return `${item.type} ${item.name}(${types(item.inputs)})`
  return item.type
}

const signatures = (abi: Abi) => new Set(abi.filter((item) => "name" in item).map(signature))

describe("payment ABIs", () => {
  it.effect("every entry is the compiled contract's", () =>
    Effect.sync(() => {
      const compiled = signatures(lighthousePaymentAbi as Abi)
      for (const entry of signatures(paymentAbi)) assert.isTrue(compiled.has(entry), entry)
      const token = signatures(mockStablecoinAbi as Abi)
      for (const entry of signatures(tokenAbi)) assert.isTrue(token.has(entry), entry)
    })
  )

  it.effect("every custom error the contract and the stablecoin can revert with is named", () =>
    Effect.sync(() => {
      const ours = signatures([...paymentAbi, ...tokenAbi])
      const compiled = [...signatures(lighthousePaymentAbi as Abi), ...signatures(mockStablecoinAbi as Abi)]
      for (const entry of compiled.filter((e) => e.startsWith("error "))) assert.isTrue(ours.has(entry), entry)
    })
  )
})
