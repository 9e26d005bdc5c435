/**
 * The demo's people: accounts of Hardhat's public test mnemonic, so the same addresses are funded
 * on the local chain. Each has a signer for the library and a fixed API key on the mock network.
 */

import { Signer } from "lighthouse-effect"
import { type HDAccount, mnemonicToAccount } from "viem/accounts"

/** Hardhat's (and anvil's) public test mnemonic: never hold real funds with it. */
export const testMnemonic = "test test test test test test test test test test test junk"

export interface DemoWallet {
  readonly name: string
  readonly account: HDAccount
  /** Lower-cased, as the key nodes and the API key accounts by it. */
  readonly address: `0x${string}`
  readonly signer: Signer.Service
  /** The API key the demo network seeds for this wallet. */
  readonly apiKey: string
}

const wallet = (name: string, index: number): DemoWallet => {
  const account = mnemonicToAccount(testMnemonic, { addressIndex: index })
  const signer = Signer.makeFromAccount(account)
  return { name, account, address: signer.address, signer, apiKey: `${name.toLowerCase()}-demo-api-key` }
}

// Account 0 deploys the contracts; the people start at 1.
export const alice = wallet("Alice", 1)
export const bob = wallet("Bob", 2)
export const carol = wallet("Carol", 3)

/**
 * A signer that claims `claimed`'s address but signs with `actual`'s key: what the key nodes see
 * when a wallet signs with the wrong account.
 */
export const impostor = (claimed: DemoWallet, actual: DemoWallet): Signer.Service => ({
  address: claimed.address,
  signMessage: actual.signer.signMessage
})
