// A browser page (index.html beside it loads this module, bundled): the file a visitor picks is
// uploaded with the Promise facade, which needs no Node built-in, then read back from the gateway
// verified against its CID. The hosts come from the page's address (`?api=…&node=…&gateway=…&
// encryption=…`, what `npm run serve` prints; its hosts answer other origins), else Lighthouse's
// own. The wallet here is a key made for the visit; a real page signs with the visitor's wallet
// (`Signer.makeFromAccount` over a viem account, or `Signer.layerFromWalletClient`).
import { Signer } from "lighthouse-effect"
import { createLighthouse } from "lighthouse-effect/promise"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"

const query = new URL(location.href).searchParams
const hosts = Object.fromEntries(
  ["api", "node", "gateway", "encryption"].flatMap((host) => {
    const url = query.get(host)
    return url === null ? [] : [[host, url]]
  })
)
const lighthouse = createLighthouse({ hosts })
const signer = Signer.makeFromAccount(privateKeyToAccount(generatePrivateKey()))

const form = document.querySelector<HTMLFormElement>("#upload")!
const picker = document.querySelector<HTMLInputElement>("#file")!
const result = document.querySelector<HTMLOutputElement>("#result")!

const uploadPicked = async (file: File) => {
  result.value = `uploading ${file.name}…`
  const apiKey = await lighthouse.auth.createApiKey(signer)
  const entry = await lighthouse.upload.file(file, { apiKey })
  // Read back verified (the default): every block checked against the CID.
  const back = await lighthouse.download.bytes(entry.Hash)
  const same = new Uint8Array(await file.arrayBuffer()).every((byte, i) => back[i] === byte)
  result.value = `${entry.Name} ${entry.Hash} ${same && back.length === file.size ? "read back verified" : "differs"}`
}

form.addEventListener("submit", (event) => {
  event.preventDefault()
  const file = picker.files?.[0]
  if (file === undefined) return
  uploadPicked(file).catch((error: Error & { _tag?: string }) => {
    result.value = `failed: ${error._tag ?? error.name}: ${error.message}`
  })
})
