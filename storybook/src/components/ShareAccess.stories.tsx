import { expect } from "storybook/test"
import preview from "../../.storybook/preview.ts"
import { uploadEncrypted } from "../demo/arrange.ts"
import { demo, startDemo } from "../demo/DemoNetwork.ts"
import { paste } from "../demo/paste.ts"
import { alice, bob, carol } from "../demo/wallets.ts"
import { withDemoRuntime } from "../demo/withDemoRuntime.tsx"
import { ShareAccess } from "./ShareAccess.tsx"

/** Alice's encrypted file, uploaded before each story. */
let cid = ""

const meta = preview.meta({
  title: "Flows/Share, revoke, transfer",
  component: ShareAccess,
  args: { signer: alice.signer },
  beforeEach: [
    startDemo(),
    async () => {
      cid = await uploadEncrypted(alice, new File(["the plan"], "plan.txt"))
    }
  ],
  decorators: [withDemoRuntime]
})

export const ShareThenRevoke = meta.story({
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("File CID"), cid)
    await paste(userEvent, canvas.getByLabelText("Address"), bob.address)
    await userEvent.click(canvas.getByRole("button", { name: "Share" }))
    await expect(await canvas.findByText("Shared.")).toBeVisible()
    await expect(canvas.getByLabelText("Access on the key nodes")).toHaveTextContent(
      `Owner${alice.address}Shared with${bob.address}`
    )
    await userEvent.click(canvas.getByRole("button", { name: "Revoke" }))
    await expect(await canvas.findByText("Access revoked.")).toBeVisible()
    await expect(canvas.getByLabelText("Access on the key nodes")).toHaveTextContent("Shared withnobody")
  }
})

export const TransferOwnership = meta.story({
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("File CID"), cid)
    await paste(userEvent, canvas.getByLabelText("Address"), carol.address)
    await userEvent.click(canvas.getByRole("button", { name: "Transfer ownership" }))
    await expect(await canvas.findByText("Ownership transferred.")).toBeVisible()
    await expect(canvas.getByLabelText("Access on the key nodes")).toHaveTextContent(
      `Owner${carol.address}Shared withnobody`
    )
    // Alice no longer owns it: she cannot share it any more.
    await paste(userEvent, canvas.getByLabelText("Address"), bob.address)
    await userEvent.click(canvas.getByRole("button", { name: "Share" }))
    await expect(await canvas.findByRole("alert")).toHaveTextContent("Access Denied")
  }
})

/** Bob tries to share Alice's file. */
export const AccessDenied = meta.story({
  args: { signer: bob.signer },
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("File CID"), cid)
    await paste(userEvent, canvas.getByLabelText("Address"), carol.address)
    await userEvent.click(canvas.getByRole("button", { name: "Share" }))
    await expect(await canvas.findByRole("alert")).toHaveTextContent("Access Denied")
  }
})

export const InvalidAddress = meta.story({
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("File CID"), cid)
    await paste(userEvent, canvas.getByLabelText("Address"), "0x1234")
    await userEvent.click(canvas.getByRole("button", { name: "Share" }))
    await expect(await canvas.findByRole("alert")).toHaveTextContent("Invalid public Key")
  }
})

export const KeyNodeDown = meta.story({
  beforeEach: () => {
    demo().network.faults.down({ host: "encryption", node: 4 })
  },
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("File CID"), cid)
    await paste(userEvent, canvas.getByLabelText("Address"), bob.address)
    await userEvent.click(canvas.getByRole("button", { name: "Share" }))
    const alert = await canvas.findByRole("alert")
    await expect(alert).toHaveTextContent("Key node 4: fetch failed")
    // A partial write is reported, not hidden.
    await expect(alert).toHaveTextContent("Already changed on key nodes 1, 2, 3, 5.")
  }
})
