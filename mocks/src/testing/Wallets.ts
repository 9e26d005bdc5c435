/**
 * The fixed wallets every area's tests sign with: Hardhat's well-known development keys, public
 * and never used anywhere real (https://hardhat.org/hardhat-network/docs/reference#initial-state),
 * and CIDs that pass the provider's pattern and decode.
 *
 * @since 0.1.0
 */
import { privateKeyToAccount } from "viem/accounts"

/** The private keys (Hardhat's accounts 1–4). */
export const testKeys = {
  alice: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  bob: "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  carol: "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
  dave: "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a"
} as const

/** The viem accounts of `testKeys`. */
export const testWallets = {
  alice: privateKeyToAccount(testKeys.alice),
  bob: privateKeyToAccount(testKeys.bob),
  carol: privateKeyToAccount(testKeys.carol),
  dave: privateKeyToAccount(testKeys.dave)
} as const

/** CIDs that pass the provider's pattern and decode; `unknown` is stored under by no test. */
export const testCids = {
  a: "QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQA",
  b: "QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH",
  c: "QmPzhJDbMgoxXH7JoRc1roXqkLGtngLiGVhegiDEmmTnbM",
  d: "QmVkHgHnYVUfvTXsaJisHRgc89zsrgVL6ATh9mSiegRYrX",
  e: "QmeYAMQLG7n4y2XNVwTexkzxNSzP4FQZyXdYM2U6cJhx8S",
  unknown: "QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQZ"
} as const
