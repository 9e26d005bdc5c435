import { expect } from "storybook/test"
import preview from "../../.storybook/preview.ts"
import { demo, startDemo } from "../demo/DemoNetwork.ts"
import { alice } from "../demo/wallets.ts"
import { withDemoRuntime } from "../demo/withDemoRuntime.tsx"
import { UploadFiles } from "./UploadFiles.tsx"

const meta = preview.meta({
  title: "Flows/Upload",
  component: UploadFiles,
  args: { apiKey: alice.apiKey, signer: alice.signer },
  beforeEach: startDemo(),
  decorators: [withDemoRuntime]
})

/** A file as a folder picker gives it: named by its path inside the picked folder's parent. */
const inFolder = (path: string, content: string) => {
  const file = new File([content], path.split("/").at(-1)!, { type: "text/plain" })
  Object.defineProperty(file, "webkitRelativePath", { value: path })
  return file
}

export const PublicFile = meta.story({
  play: async ({ canvas, userEvent }) => {
    await userEvent.upload(canvas.getByLabelText("Files"), new File(["hello world\n"], "hello.txt"))
    await userEvent.click(canvas.getByRole("button", { name: /Upload/ }))
    const uploaded = await canvas.findByRole("table", { name: "Uploaded" })
    // The CID kubo gives `hello world\n` (CID v1, raw leaves).
    await expect(uploaded).toHaveTextContent("hello.txtbafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei412 B")
    await expect(canvas.getByRole("progressbar", { name: "Upload progress" })).toHaveAttribute("value", "1")
    await expect(canvas.getByText("100%")).toBeVisible()
  }
})

export const EncryptedFile = meta.story({
  play: async ({ canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("radio", { name: /Encrypted/ }))
    await userEvent.upload(canvas.getByLabelText("Files"), new File(["for my eyes only"], "secret.txt"))
    await userEvent.click(canvas.getByRole("button", { name: /Upload/ }))
    const uploaded = await canvas.findByRole("table", { name: "Uploaded" })
    await expect(uploaded).toHaveTextContent("secret.txt")
    // Ciphertext: the 16-byte content plus salt, IV and GCM tag.
    await expect(uploaded).toHaveTextContent("60 B")
    // Each of the 5 key nodes now holds one shard of the file's key, owned by Alice.
    const cid = uploaded.querySelector("code")!.textContent!
    for (const node of demo().network.state.keyNodes.nodes) await expect(node.files.get(cid)?.owner).toBe(alice.address)
  }
})

export const Folder = meta.story({
  play: async ({ canvas, userEvent }) => {
    await userEvent.upload(canvas.getByLabelText("Or a folder"), [
      inFolder("photos/a.txt", "alpha\n"),
      inFolder("photos/2024/b.txt", "beta\n")
    ])
    await userEvent.click(canvas.getByRole("button", { name: "Upload 2 file(s)" }))
    const uploaded = await canvas.findByRole("table", { name: "Uploaded" })
    // The folder's CID, as kubo builds it from the two files.
    await expect(uploaded).toHaveTextContent("photosbafybeiagrm45d6rgkxgbxmheya363dytgrbowr7f7mt6rpsfz4b3gr5mh4165 B")
  }
})

export const QuotaExceeded = meta.story({
  beforeEach: () => {
    demo().network.setQuota(alice.address, { dataLimit: 100, dataUsed: 0 })
  },
  play: async ({ canvas, userEvent }) => {
    await userEvent.upload(canvas.getByLabelText("Files"), new File(["x".repeat(1000)], "big.txt"))
    await userEvent.click(canvas.getByRole("button", { name: /Upload/ }))
    await expect(await canvas.findByRole("alert")).toHaveTextContent(
      "Storage quota exceeded: 0 of 100 bytes used, this upload needs more than the 100 left"
    )
  }
})

export const EncryptedWithKeyNodeDown = meta.story({
  beforeEach: () => {
    demo().network.faults.down({ host: "encryption", node: 3 })
  },
  play: async ({ canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("radio", { name: /Encrypted/ }))
    await userEvent.upload(canvas.getByLabelText("Files"), new File(["for my eyes only"], "secret.txt"))
    await userEvent.click(canvas.getByRole("button", { name: /Upload/ }))
    await expect(await canvas.findByRole("alert")).toHaveTextContent("Error encrypting file")
    await expect(canvas.getByRole("list", { name: "Stored, but their key was not saved" })).toHaveTextContent(
      "secret.txt: key node 3: fetch failed (nodes 1, 2, 4, 5 hold their shard)"
    )
  }
})
