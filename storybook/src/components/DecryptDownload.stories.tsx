import { expect } from "storybook/test"
import preview from "../../.storybook/preview.ts"
import { drawPng, setConditions, share, uploadEncrypted } from "../demo/arrange.ts"
import { deployment, mint } from "../demo/chain.ts"
import { demo, startDemo } from "../demo/DemoNetwork.ts"
import { paste } from "../demo/paste.ts"
import { alice, bob, carol } from "../demo/wallets.ts"
import { withDemoRuntime } from "../demo/withDemoRuntime.tsx"
import { DecryptDownload } from "./DecryptDownload.tsx"

/** The file each story opens, uploaded encrypted by Alice before it starts. */
let cid = ""
const notes = "Meeting at noon.\nBring the keys."

const meta = preview.meta({
  title: "Flows/Decrypt and download",
  component: DecryptDownload,
  args: { signer: alice.signer },
  beforeEach: [
    startDemo(),
    async () => {
      cid = await uploadEncrypted(alice, new File([notes], "notes.txt", { type: "text/plain" }))
    }
  ],
  decorators: [withDemoRuntime]
})

const decrypt = "Recover the key and decrypt"

/** The key nodes named in "Key recovered from key nodes 1, 3, 4." */
const nodesNamed = (text: string | null) => (/key nodes ([\d, ]+)\./.exec(text ?? "")?.[1] ?? "").split(", ")

export const OwnerReadsText = meta.story({
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("File CID"), cid)
    await userEvent.click(canvas.getByRole("button", { name: decrypt }))
    const file = await canvas.findByRole("region", { name: "Decrypted file" })
    await expect(file).toHaveTextContent(/Key recovered from key nodes \d, \d, \d\. notes\.txt, text\/plain, 32 B\./)
    await expect(file.querySelector("pre")?.textContent).toBe(notes)
    await expect(canvas.getByRole("link", { name: "Save notes.txt" })).toHaveAttribute("download", "notes.txt")
  }
})

/** Alice shares a picture with Bob; Bob opens it. */
export const SharedImage = meta.story({
  args: { signer: bob.signer },
  beforeEach: async () => {
    const photo = new File([await drawPng("For Bob")], "photo.png", { type: "image/png" })
    cid = await uploadEncrypted(alice, photo)
    await share(alice, cid, bob)
  },
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("File CID"), cid)
    await userEvent.click(canvas.getByRole("button", { name: decrypt }))
    const image = await canvas.findByRole("img", { name: "photo.png" })
    await expect(image).toHaveAttribute("src", expect.stringMatching(/^blob:/))
    // The decrypted bytes are a real PNG: the browser decodes it.
    await expect(await (image as HTMLImageElement).decode().then(() => (image as HTMLImageElement).naturalWidth)).toBe(
      160
    )
  }
})

/** The download is checked block by block against the CID before it is decrypted. */
export const VerifiedDownload = meta.story({
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("File CID"), cid)
    await userEvent.click(canvas.getByRole("button", { name: decrypt }))
    const file = await canvas.findByRole("region", { name: "Decrypted file" })
    await expect(file).toHaveTextContent(`Verified: every block checked against ${cid}.`)
  }
})

/** The gateway lies (one byte flipped in the answer): the caller sees which CID and what was wrong, never the bytes. */
export const LyingGateway = meta.story({
  beforeEach: () => {
    demo().network.faults.lie({ host: "gateway" }, "flip-byte")
  },
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("File CID"), cid)
    await userEvent.click(canvas.getByRole("button", { name: decrypt }))
    const alert = await canvas.findByRole("alert")
    await expect(alert).toHaveTextContent(`Content ${cid} failed verification (block-hash-mismatch)`)
    await expect(canvas.queryByRole("region", { name: "Decrypted file" })).toBeNull()
  }
})

/** Carol is neither the owner nor shared with: no node hands her a shard. */
export const AccessDenied = meta.story({
  args: { signer: carol.signer },
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("File CID"), cid)
    await userEvent.click(canvas.getByRole("button", { name: decrypt }))
    await expect(await canvas.findByRole("alert")).toHaveTextContent("Access Denied")
  }
})

/** Node 2 is down: another node stands in, 3 shards still recover the key. */
export const OneKeyNodeDown = meta.story({
  beforeEach: () => {
    demo().network.faults.down({ host: "encryption", node: 2 })
  },
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("File CID"), cid)
    await userEvent.click(canvas.getByRole("button", { name: decrypt }))
    const file = await canvas.findByRole("region", { name: "Decrypted file" })
    const nodes = nodesNamed(file.textContent)
    await expect(nodes).toHaveLength(3)
    await expect(nodes).not.toContain("2")
    await expect(file.querySelector("pre")?.textContent).toBe(notes)
  }
})

/** Three nodes down: only 2 shards can be had, fewer than the 3 a key needs. */
export const ThreeKeyNodesDown = meta.story({
  beforeEach: () => {
    for (const node of [1, 2, 3]) demo().network.faults.down({ host: "encryption", node })
  },
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("File CID"), cid)
    await userEvent.click(canvas.getByRole("button", { name: decrypt }))
    const alert = await canvas.findByRole("alert")
    await expect(alert).toHaveTextContent(/^Only 2 of 3 key shards could be retrieved \(/)
    for (const node of [1, 2, 3]) await expect(alert).toHaveTextContent(`node ${node}: fetch failed`)
  }
})

// -----------------------------------------------------------------------------
// On chain: the key goes to holders of at least 1 test USDC on the local chain
// -----------------------------------------------------------------------------

/** Alice's file opens for anyone holding 1 USDC (6 decimals), checked by the key nodes on chain. */
const usdcHolders = async () => {
  const { usdc } = await deployment(11)
  await setConditions(alice, cid, [
    {
      id: 1,
      chain: "localhost",
      method: "balanceOf",
      standardContractType: "ERC20",
      contractAddress: usdc,
      parameters: [":userAddress"],
      returnValueTest: { comparator: ">=", value: 1_000_000 }
    }
  ])
  return usdc
}

export const TokenHolderOpens = meta.story({
  args: { signer: bob.signer },
  beforeEach: async () => {
    const usdc = await usdcHolders()
    await mint(usdc, bob.account.address, 1_000_000n, 11)
  },
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("File CID"), cid)
    await userEvent.click(canvas.getByRole("button", { name: decrypt }))
    const file = await canvas.findByRole("region", { name: "Decrypted file" })
    await expect(file.querySelector("pre")?.textContent).toBe(notes)
    // Bob got his shards through the condition, not as owner or by sharing.
    const released = demo().network.state.keyNodes.nodes.flatMap((node) => node.released)
    await expect(released.filter((r) => r.to === bob.address).map((r) => r.right)).toEqual([
      "conditions",
      "conditions",
      "conditions"
    ])
  }
})

export const NonHolderDenied = meta.story({
  args: { signer: carol.signer },
  beforeEach: async () => {
    await usdcHolders()
  },
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("File CID"), cid)
    await userEvent.click(canvas.getByRole("button", { name: decrypt }))
    await expect(await canvas.findByRole("alert")).toHaveTextContent("Access Denied")
  }
})
