import { Layer } from "effect"
import { Signer } from "lighthouse-effect"
import * as LighthouseNode from "lighthouse-effect/node"
import { makeClient } from "lighthouse-effect/promise"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"

// The same services as Promises, over the same layer (a bad LIGHTHOUSE_* value rejects the first call).
const lighthouse = makeClient(Layer.orDie(LighthouseNode.layerConfig()))
const signer = Signer.makeFromAccount(privateKeyToAccount(generatePrivateKey()))
const apiKey = await lighthouse.auth.createApiKey(signer)
const { Hash: cid } = await lighthouse.upload.text("hello from the tour\n", { apiKey, name: "hello.txt" })
const bytes = await lighthouse.download.bytes(cid)
console.log(new TextDecoder().decode(bytes).trim()) // "hello from the tour"
await lighthouse.dispose()
