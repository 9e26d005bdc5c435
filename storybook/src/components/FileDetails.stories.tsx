import { expect } from "storybook/test"
import preview from "../../.storybook/preview.ts"
import { uploadPublic } from "../demo/arrange.ts"
import { demo, startDemo } from "../demo/DemoNetwork.ts"
import { paste } from "../demo/paste.ts"
import { alice } from "../demo/wallets.ts"
import { withDemoRuntime } from "../demo/withDemoRuntime.tsx"
import { FileDetails } from "./FileDetails.tsx"

/** The file each story looks up, uploaded by Alice before it starts. */
let cid = ""

const meta = preview.meta({
  title: "Flows/File details",
  component: FileDetails,
  beforeEach: [
    startDemo(),
    async () => {
      cid = await uploadPublic(alice, new File(["a,b\n1,2\n"], "table.csv", { type: "text/csv" }))
    }
  ],
  decorators: [withDemoRuntime]
})

export const BeforeADeal = meta.story({
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("CID"), cid)
    await userEvent.click(canvas.getByRole("button", { name: "Look up" }))
    await expect(await canvas.findByLabelText("File")).toHaveTextContent("Nametable.csvSize8 BTypetext/csvEncryptedno")
    await expect(canvas.getByText("No deal yet.")).toBeVisible()
    await expect(canvas.getByText("Proof Doesn't exist yet")).toBeVisible()
  }
})

export const WithDeals = meta.story({
  beforeEach: async () => {
    await demo().network.simulateDeal(cid, { copies: 2, providers: ["f01234", "f05678"] })
  },
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("CID"), cid)
    await userEvent.click(canvas.getByRole("button", { name: "Look up" }))
    const deals = await canvas.findByRole("table", { name: "Deals" })
    await expect(deals).toHaveTextContent("f01234Sealing: Proving")
    await expect(deals).toHaveTextContent("f05678Sealing: Proving")
    const proof = canvas.getByLabelText("Proof")
    await expect(proof).toHaveTextContent(/^Piecebaga6ea4sea/)
    await expect(proof).toHaveTextContent(/Deal \d+f01234: inclusion proof at index [0-9a-f]+, \d+ hashes/)
    await expect(proof).toHaveTextContent(/Deal \d+f05678: inclusion proof at index [0-9a-f]+, \d+ hashes/)
  }
})

export const InvalidCid = meta.story({
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("CID"), "Qm123")
    await userEvent.click(canvas.getByRole("button", { name: "Look up" }))
    await expect(await canvas.findByRole("alert")).toHaveTextContent("Invalid CID")
  }
})

export const UnknownFile = meta.story({
  play: async ({ canvas, userEvent }) => {
    // A well-formed CID nobody uploaded here.
    await paste(userEvent, canvas.getByLabelText("CID"), "QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o")
    await userEvent.click(canvas.getByRole("button", { name: "Look up" }))
    await expect(await canvas.findByRole("alert")).toHaveTextContent("HTTP error! status 404")
  }
})
