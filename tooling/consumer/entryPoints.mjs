// A consumer's program through every entry point of the installed package, run by the consumer
// test on the oldest Node any entry point supports (Node 20.19, `tooling/node20`).
//
// Each entry point loads. The core ones do real work: `lighthouse-effect/promise` signs in,
// uploads plain and encrypted text and downloads both back (decrypting with the key from the key
// nodes) from the served network whose addresses `SERVED_NETWORK` gives (served by the consumer
// test from a Node that `/mocks/server` supports). The entry points that need a newer Node load
// and, where a built-in is missing, say so in their one line when used. Prints nothing when all is
// well; otherwise the first thing that differs, and exits 1.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const node = process.versions.node
const expectations = {
  startMockNetwork: `startMockNetwork needs Node ≥ 22.12 for msw 3, which intercepts requests with Promise.withResolvers (this is Node ${node})`,
  stateDir: `A state directory needs Node ≥ 22.13 for node:sqlite (this is Node ${node}); without stateDir the simulated network keeps its state in memory`
}

const fail = (what, detail) => {
  process.stderr.write(`${what}: ${detail}\n`)
  process.exit(1)
}

const equal = (what, actual, expected) => {
  if (actual !== expected) fail(what, `expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`)
}

/** What `action` threw (synchronously or as a rejection), or a failure if it did not. */
const thrown = async (what, action) => {
  try {
    await action()
  } catch (error) {
    return error
  }
  return fail(what, "did not fail")
}

const core = await import("lighthouse-effect")
const { createLighthouse } = await import("lighthouse-effect/promise")
const contracts = await import("lighthouse-effect/contracts")
const lighthouseNode = await import("lighthouse-effect/node")
const mocks = await import("lighthouse-effect/mocks")
const mocksNode = await import("lighthouse-effect/mocks/node")
const { serveMockNetwork } = await import("lighthouse-effect/mocks/server")
const { startLocalChain } = await import("lighthouse-effect/mocks/chain")
const { privateKeyToAccount } = await import("viem/accounts")

for (const [entry, value] of Object.entries({
  "lighthouse-effect Lighthouse.layer": core.Lighthouse.layer,
  "lighthouse-effect Lighthouse.layerConfig": core.Lighthouse.layerConfig,
  "lighthouse-effect LighthouseStorage.layer": core.LighthouseStorage.layer,
  "lighthouse-effect LighthouseStorage.layerConfig": core.LighthouseStorage.layerConfig,
  "lighthouse-effect/node layer": lighthouseNode.layer,
  "lighthouse-effect/node layerConfig": lighthouseNode.layerConfig,
  "lighthouse-effect/node createLighthouseNode": lighthouseNode.createLighthouseNode,
  "lighthouse-effect/mocks createMockNetwork": mocks.createMockNetwork,
  "lighthouse-effect/mocks/chain startLocalChain": startLocalChain
}))
  equal(`${entry} is a function`, typeof value, "function")
equal(
  "lighthouse-effect/contracts: the payment contract's ABI has its functions",
  contracts.lighthousePaymentAbi.some((item) => item.type === "function"),
  true
)

// `lighthouse-effect/mocks/browser` is msw's service worker: msw's `browser` export is closed to Node.
const browser = await thrown("lighthouse-effect/mocks/browser in Node", () => import("lighthouse-effect/mocks/browser"))
equal("lighthouse-effect/mocks/browser in Node", browser.code, "ERR_PACKAGE_PATH_NOT_EXPORTED")

// The simulated network in process: loads, and names the Node it needs in one line.
const noNetwork = await thrown("startMockNetwork", () => mocksNode.startMockNetwork())
equal("startMockNetwork", noNetwork.message, expectations.startMockNetwork)
equal("startMockNetwork's error", noNetwork instanceof mocksNode.UnsupportedNode, true)
const scratch = mkdtempSync(join(tmpdir(), "lighthouse-effect-entry-points-"))
try {
  const noSqlite = await thrown("openNetworkStorage", () => mocksNode.openNetworkStorage(join(scratch, "state")))
  equal("openNetworkStorage", noSqlite.message, expectations.stateDir)
  const noServedState = await thrown("serveMockNetwork({ stateDir })", () =>
    serveMockNetwork({ stateDir: join(scratch, "state") })
  )
  equal("serveMockNetwork({ stateDir })", noServedState.message, expectations.stateDir)
} finally {
  rmSync(scratch, { recursive: true, force: true })
}

// The library itself, against the served network.
const { urls } = JSON.parse(process.env.SERVED_NETWORK ?? fail("SERVED_NETWORK", "not set"))
const lighthouse = createLighthouse({ hosts: urls, nodes: { mode: "concurrent" } })
const signer = core.Signer.makeFromAccount(privateKeyToAccount(process.env.PRIVATE_KEY))
const apiKey = await lighthouse.auth.createApiKey(signer)
const plain = await lighthouse.upload.text("hello world\n", { apiKey, name: "hello.txt" })
equal("upload.text's CID", plain.Hash, "bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4")
equal("download.bytes", new TextDecoder().decode(await lighthouse.download.bytes(plain.Hash)), "hello world\n")
const token = await lighthouse.auth.token(signer)
const secret = await lighthouse.upload.encryptedText("only for me\n", { apiKey, address: signer.address, token })
const decrypted = await lighthouse.download.bytes(secret.Hash, { decrypt: { signer } })
equal("download.bytes with decrypt", new TextDecoder().decode(decrypted), "only for me\n")
await lighthouse.dispose()
