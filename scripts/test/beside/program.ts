/**
 * A user's program, as docs/configuration.md writes one: its hosts from the `LIGHTHOUSE_*`
 * variables through `layerConfig()`, nothing else. It signs in with a new wallet, stores a text
 * through the Effect layer and another through the Promise facade over the same layer, and prints
 * one JSON line: the API host it used and both CIDs. `serveEnvironment.test.ts` runs it beside
 * `npm run serve` with the variables the banner prints.
 */
import { Effect, Layer } from "effect"
import { Auth, LighthouseConfig, Signer, Upload } from "lighthouse-effect"
import * as LighthouseNode from "lighthouse-effect/node"
import { makeClient } from "lighthouse-effect/promise"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"

const program = Effect.gen(function* () {
  const config = yield* LighthouseConfig.LighthouseConfig
  const signer = yield* Signer.makeFromPrivateKey(generatePrivateKey())
  const apiKey = yield* Auth.Auth.use((auth) => auth.createApiKey(signer))
  const entry = yield* Upload.Upload.use((upload) => upload.text("beside serve, through Effect\n", { apiKey }))
  return { api: config.hosts.api, effect: entry.Hash }
})

const { api, effect } = await Effect.runPromise(program.pipe(Effect.provide(LighthouseNode.layerConfig())))

const lighthouse = makeClient(Layer.orDie(LighthouseNode.layerConfig()))
const signer = Signer.makeFromAccount(privateKeyToAccount(generatePrivateKey()))
const apiKey = await lighthouse.auth.createApiKey(signer)
const { Hash: promise } = await lighthouse.upload.text("beside serve, through Promises\n", { apiKey })
await lighthouse.dispose()

console.log(JSON.stringify({ api, effect, promise }))
