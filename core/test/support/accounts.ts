/**
 * Fixed test wallets (Hardhat's well-known keys: never used anywhere real) and CIDs that pass the
 * provider's pattern.
 */
import { privateKeyToAccount } from "viem/accounts"

export const keys = {
  alice: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  bob: "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  carol: "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
  dave: "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a"
} as const

export const alice = privateKeyToAccount(keys.alice)
export const bob = privateKeyToAccount(keys.bob)
export const carol = privateKeyToAccount(keys.carol)

/** A file's CID, and another one no test stores anything under unless it says so. */
export const cid = "QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQA"
export const otherCid = "QmPzhJDbMgoxXH7JoRc1roXqkLGtngLiGVhegiDEmmTnbM"
