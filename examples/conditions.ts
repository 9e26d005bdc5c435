// Access conditions: who may decrypt a file is decided by the key nodes from on-chain state. The
// conditions are validated here before anything is sent, and read back from the nodes.
// Run beside `npm run serve` with the variables it prints (unset: Lighthouse's own hosts).
import { Config, Effect } from "effect"
import { AccessControl, Auth, Download, Signer, Upload } from "lighthouse-effect"
import * as LighthouseNode from "lighthouse-effect/node"
import { generatePrivateKey } from "viem/accounts"

const usdcOnPolygon = "0x3c499c542cef5e3811e1192ce70d8cc03d5c3359"

const program = Effect.gen(function* () {
  const owner = yield* Signer.makeFromPrivateKey(process.env.PRIVATE_KEY ?? generatePrivateKey())
  const stranger = yield* Signer.makeFromPrivateKey(generatePrivateKey())
  const apiKey = yield* Auth.Auth.use((auth) => auth.createApiKey(owner))
  const access = yield* AccessControl.AccessControl

  const report = yield* Upload.Upload.use((upload) =>
    upload.encryptedText("for USDC holders", { apiKey, signer: owner, name: "report.txt" })
  )

  // Holders of at least 1 USDC on Polygon may decrypt.
  const holdsUsdc = {
    id: 1,
    chain: "Polygon",
    method: "balanceOf",
    standardContractType: "ERC20",
    contractAddress: usdcOnPolygon,
    parameters: [":userAddress"],
    returnValueTest: { comparator: ">=", value: "1000000" }
  } as const

  // Conditions the key nodes would refuse are refused here, before any request: two with one id.
  const refused = yield* access
    .update({ signer: owner, cid: report.Hash, conditions: [holdsUsdc, holdsUsdc] })
    .pipe(Effect.flip)
  console.log(refused._tag) // "ConditionValidationError"

  yield* access.update({ signer: owner, cid: report.Hash, conditions: [holdsUsdc] })
  const held = yield* access.get(report.Hash)
  console.log(held.conditions.length, held.owner === owner.address.toLowerCase()) // "1 true"

  // A wallet without USDC is refused by the key nodes.
  const denied = yield* Download.Download.use((download) =>
    download.bytes(report.Hash, { decrypt: { signer: stranger } })
  ).pipe(Effect.flip)
  console.log(denied.message) // "Access Denied"
})

const layer = LighthouseNode.layerConfig({ nodes: Config.succeed({ mode: "concurrent" }) })
await Effect.runPromise(program.pipe(Effect.provide(layer)))
