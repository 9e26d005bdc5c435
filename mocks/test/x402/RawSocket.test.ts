/**
 * A body longer than its declared `Content-Length` on the current x402 route (`POST /api/upload`),
 * over a raw socket to the served network on the local chain. The declared length prices the upload;
 * Node's HTTP parser reads that many bytes as the body and the surplus as a next request, which it
 * refuses (`400`, connection closed). The route must not settle the payment for a client that is
 * gone: nothing settled, nothing stored; the same signed payment, sent well-formed, then pays once.
 */
import { connect } from "node:net"
import { deployLocal, type LocalDeployment, testUsdcAbi } from "lighthouse-effect/contracts"
import { type LocalChain, startLocalChain } from "lighthouse-effect/mocks/chain"
import { type Address, erc20Abi, toHex } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ServedMockNetwork, serveMockNetwork } from "../../src/server/serve.ts"
import { transferWithAuthorizationTypes } from "../../src/x402/Facilitator.ts"

let chain: LocalChain
let deployment: LocalDeployment
let served: ServedMockNetwork
let payTo: Address

beforeAll(async () => {
  chain = await startLocalChain()
  deployment = await deployLocal(chain.walletClients[0]!, chain.publicClient)
  payTo = chain.accounts[8]!
  served = await serveMockNetwork({
    x402: { publicClient: chain.publicClient, settler: chain.walletClients[9]!, asset: deployment.x402Usdc, payTo }
  })
}, 120_000)
afterAll(async () => {
  await served?.close()
  await chain?.stop()
})

const balanceOf = (address: Address) =>
  chain.publicClient.readContract({
    address: deployment.x402Usdc,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [address]
  })

/** Everything the server writes back on one connection, until it closes it. */
const exchange = (port: number, request: Uint8Array) =>
  new Promise<string>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1")
    const answer: Array<Buffer> = []
    socket.on("data", (chunk) => answer.push(chunk))
    socket.on("end", () => resolve(Buffer.concat(answer).toString("latin1")))
    socket.on("error", reject)
    socket.setTimeout(20_000, () => socket.destroy(new Error("no answer within 20 s")))
    socket.end(request)
  })

/** `payer`'s version 2 payment of `amount` for the current upload route, base64 for `PAYMENT-SIGNATURE`. */
const paymentSignature = async (payer: ReturnType<typeof privateKeyToAccount>, amount: bigint) => {
  const now = (await chain.publicClient.getBlock()).timestamp
  const accepted = {
    scheme: "exact",
    network: "eip155:31337",
    amount: String(amount),
    asset: deployment.x402Usdc,
    payTo,
    maxTimeoutSeconds: 300,
    extra: { name: "USD Coin", version: "2" }
  }
  const message = {
    from: payer.address,
    to: payTo,
    value: amount,
    validAfter: now - 600n,
    validBefore: now + 300n,
    nonce: toHex(crypto.getRandomValues(new Uint8Array(32)))
  }
  const signature = await payer.signTypedData({
    domain: { name: "USD Coin", version: "2", chainId: 31337, verifyingContract: deployment.x402Usdc },
    types: transferWithAuthorizationTypes,
    primaryType: "TransferWithAuthorization",
    message
  })
  const authorization = {
    ...message,
    value: String(amount),
    validAfter: String(message.validAfter),
    validBefore: String(message.validBefore)
  }
  const payment = {
    x402Version: 2,
    resource: { url: `${served.urls.api}/api/upload` },
    accepted,
    payload: { signature, authorization }
  }
  return Buffer.from(JSON.stringify(payment)).toString("base64")
}

describe("POST /api/upload over a raw socket", () => {
  it("a body longer than its Content-Length is refused and never settled; the same payment then pays once", async () => {
    const payer = privateKeyToAccount(chain.privateKeys[1]!)
    const hash = await chain.walletClients[0]!.writeContract({
      address: deployment.x402Usdc,
      abi: testUsdcAbi,
      functionName: "mint",
      args: [payer.address, 100_000n]
    })
    await chain.publicClient.waitForTransactionReceipt({ hash })
    // 10 bytes declared: the 1 MB minimum at $0.004 plus the $0.001 fee.
    const signed = await paymentSignature(payer, 5000n)
    const before = await balanceOf(payTo)
    const head =
      "POST /api/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\nx-file-name: longer.bin\r\n" +
      `payment-signature: ${signed}\r\n\r\n`
    const answer = await exchange(
      Number(new URL(served.urls.api).port),
      Buffer.concat([Buffer.from(head), Buffer.alloc(30, 0x61)])
    )
    // Node's parser takes the 20 bytes past the declared 10 for a next request: 400, and the connection closed.
    expect(answer).toBe("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n")

    // The same authorisation on a well-formed request: settled once, so the refused one never was (nor will be).
    const exact = await fetch(`${served.urls.api}/api/upload`, {
      method: "POST",
      body: new Uint8Array(10),
      headers: { "x-file-name": "exact.bin", "payment-signature": signed }
    })
    expect(exact.status).toBe(200)
    expect(await balanceOf(payTo)).toBe(before + 5000n)
    expect(served.network.state.files.of(payer.address.toLowerCase()).map((file) => file.fileName)).toEqual([
      "exact.bin"
    ])
  })
})
