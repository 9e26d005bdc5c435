import { expect, within } from "storybook/test"
import preview from "../../.storybook/preview.ts"
import { uploadPublic } from "../demo/arrange.ts"
import { demo, startDemo } from "../demo/DemoNetwork.ts"
import { paste } from "../demo/paste.ts"
import { alice } from "../demo/wallets.ts"
import { withDemoRuntime } from "../demo/withDemoRuntime.tsx"
import { IpnsManager } from "./IpnsManager.tsx"

const meta = preview.meta({
  title: "Flows/IPNS",
  component: IpnsManager,
  args: { apiKey: alice.apiKey },
  beforeEach: startDemo(),
  decorators: [withDemoRuntime]
})

export const GenerateAndPublish = meta.story({
  play: async ({ canvas, userEvent }) => {
    await expect(await canvas.findByText("No keys yet.")).toBeVisible()
    await userEvent.click(canvas.getByRole("button", { name: "Create a key" }))
    const keys = await canvas.findByRole("table", { name: "Keys" })
    const [key] = demo().network.state.ipns.of(alice.address)
    await expect(canvas.getByText(`Key ${key!.ipnsName} created.`)).toBeVisible()
    await expect(within(keys).getByRole("row", { name: new RegExp(key!.ipnsId) })).toHaveTextContent("nothing yet")

    // Two versions of a page, published one after the other under the same name.
    for (const version of ["v1", "v2"]) {
      const cid = await uploadPublic(alice, new File([`<h1>${version}</h1>`], "index.html"))
      await paste(userEvent, canvas.getByLabelText("CID"), cid)
      await userEvent.click(canvas.getByRole("button", { name: "Publish" }))
      await expect(await canvas.findByText(`Published /ipfs/${cid} as /ipns/${key!.ipnsId}.`)).toBeVisible()
      await expect(within(keys).getByRole("row", { name: new RegExp(key!.ipnsId) })).toHaveTextContent(cid)
    }
  }
})

export const RemoveKey = meta.story({
  beforeEach: () => {
    demo().network.state.ipns.generate(alice.address)
  },
  play: async ({ canvas, userEvent }) => {
    const [key] = demo().network.state.ipns.of(alice.address)
    await userEvent.click(await canvas.findByRole("button", { name: `Remove ${key!.ipnsName}` }))
    await expect(await canvas.findByText(`Key ${key!.ipnsName} removed.`)).toBeVisible()
    await expect(canvas.getByText("No keys yet.")).toBeVisible()
  }
})

export const InvalidCid = meta.story({
  play: async ({ canvas, userEvent }) => {
    await expect(await canvas.findByText("No keys yet.")).toBeVisible()
    await userEvent.click(canvas.getByRole("button", { name: "Create a key" }))
    await paste(userEvent, await canvas.findByLabelText("CID"), "QmNotACid")
    await userEvent.click(canvas.getByRole("button", { name: "Publish" }))
    await expect(await canvas.findByRole("alert")).toHaveTextContent("Invalid CID")
  }
})

export const ApiFailing = meta.story({
  beforeEach: () => {
    demo().network.faults.status({ host: "api", path: /^\/api\/ipns\// }, 500)
  },
  play: async ({ canvas }) => {
    await expect(await canvas.findByRole("alert")).toHaveTextContent("Request failed with status code 500")
  }
})
