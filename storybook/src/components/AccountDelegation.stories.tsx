import { expect } from "storybook/test"
import preview from "../../.storybook/preview.ts"
import { uploadEncrypted } from "../demo/arrange.ts"
import { demo, startDemo } from "../demo/DemoNetwork.ts"
import { paste } from "../demo/paste.ts"
import { alice, bob, carol } from "../demo/wallets.ts"
import { withDemoRuntime } from "../demo/withDemoRuntime.tsx"
import { AccountDelegation } from "./AccountDelegation.tsx"

/** Alice's encrypted file, uploaded before each story. */
let cid = ""
const plan = "Ship on Friday."

const meta = preview.meta({
  title: "Flows/Account delegation",
  component: AccountDelegation,
  args: { owner: alice.signer, delegate: bob.signer },
  beforeEach: [
    startDemo(),
    async () => {
      cid = await uploadEncrypted(alice, new File([plan], "plan.txt", { type: "text/plain" }))
    }
  ],
  decorators: [withDemoRuntime]
})

const open = "Open as delegate"

/** Alice delegates to Bob; Bob opens her file; Alice revokes; Bob is refused. */
export const GrantOpenRevoke = meta.story({
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("Delegate address"), bob.address)
    await userEvent.click(canvas.getByRole("button", { name: "Delegate all files" }))
    await expect(await canvas.findByText("Delegated on key nodes 1, 2, 3, 4, 5.")).toBeVisible()

    await paste(userEvent, canvas.getByLabelText("Owner's file CID"), cid)
    await userEvent.click(canvas.getByRole("button", { name: open }))
    await expect(await canvas.findByLabelText("Opened file")).toHaveTextContent(`Owner${alice.address}Content${plan}`)

    await userEvent.click(canvas.getByRole("button", { name: "Revoke all delegates" }))
    await expect(await canvas.findByText("Delegates revoked on key nodes 1, 2, 3, 4, 5.")).toBeVisible()
    await userEvent.click(canvas.getByRole("button", { name: open }))
    await expect(await canvas.findByRole("alert")).toHaveTextContent("Access Denied")
    await expect(canvas.queryByLabelText("Opened file")).toBeNull()
  }
})

/** Alice delegated to Bob, not to Carol: Carol naming Alice as owner is refused. */
export const NotADelegate = meta.story({
  args: { delegate: carol.signer },
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("Delegate address"), bob.address)
    await userEvent.click(canvas.getByRole("button", { name: "Delegate all files" }))
    await expect(await canvas.findByText("Delegated on key nodes 1, 2, 3, 4, 5.")).toBeVisible()
    await paste(userEvent, canvas.getByLabelText("Owner's file CID"), cid)
    await userEvent.click(canvas.getByRole("button", { name: open }))
    await expect(await canvas.findByRole("alert")).toHaveTextContent("Access Denied")
  }
})

export const InvalidDelegateAddress = meta.story({
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("Delegate address"), "0x1234")
    await userEvent.click(canvas.getByRole("button", { name: "Delegate all files" }))
    await expect(await canvas.findByRole("alert")).toHaveTextContent("Invalid public Key")
  }
})

export const KeyNodeDown = meta.story({
  beforeEach: () => {
    demo().network.faults.down({ host: "encryption", node: 3 })
  },
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("Delegate address"), bob.address)
    await userEvent.click(canvas.getByRole("button", { name: "Delegate all files" }))
    const alert = await canvas.findByRole("alert")
    await expect(alert).toHaveTextContent("Key node 3: fetch failed")
    // A partial change is reported, not hidden.
    await expect(alert).toHaveTextContent("Already changed on key nodes 1, 2, 4, 5.")
  }
})
