import { expect, within } from "storybook/test"
import preview from "../../.storybook/preview.ts"
import { uploadPublic } from "../demo/arrange.ts"
import { demo, startDemo } from "../demo/DemoNetwork.ts"
import { paste } from "../demo/paste.ts"
import { alice } from "../demo/wallets.ts"
import { withDemoRuntime } from "../demo/withDemoRuntime.tsx"
import { MultiSourceDownload } from "./MultiSourceDownload.tsx"

const gateways = ["https://gw-a.example", "https://gw-liar.example", "https://gw-c.example"]
/** 1 MiB: four 256 KiB blocks, so the three gateways share them. */
const content = new Uint8Array(1024 * 1024).map((_, i) => (i * 7 + (i >> 9)) & 0xff)
/** The file each story downloads, uploaded by Alice before it starts. */
let cid = ""

const meta = preview.meta({
  title: "Flows/Download from several gateways",
  component: MultiSourceDownload,
  args: { sources: gateways },
  beforeEach: [
    startDemo({ gateways }),
    async () => {
      cid = await uploadPublic(alice, new File([content], "shared.bin", { type: "application/octet-stream" }))
    }
  ],
  decorators: [withDemoRuntime]
})

const download = "Download from 3 gateways"

/** The cells of each row of the sources table, as text. */
const rowsOf = (table: HTMLElement) =>
  [...table.querySelectorAll("tbody tr")].map((row) => [...row.querySelectorAll("td")].map((cell) => cell.textContent))

/** One gateway flips a byte in its answers: it is dropped for lying, the others serve the whole file. */
export const OneGatewayLies = meta.story({
  beforeEach: () => {
    demo().network.gateways[1]!.faults.lie({ host: "gateway" }, "flip-byte")
  },
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("CID"), cid)
    await userEvent.click(canvas.getByRole("button", { name: download }))
    const report = await canvas.findByRole("region", { name: "Per-source report" }, { timeout: 15_000 })
    await expect(report).toHaveTextContent(`1.00 MB, every block checked against ${cid}.`)
    const rows = rowsOf(within(report).getByRole("table", { name: "Sources" }))
    await expect(rows.map((row) => row[0])).toEqual(["gw-a.example", "gw-liar.example", "gw-c.example"])
    await expect(rows[1]![2]).toMatch(/^dropped: lied: block baf\w+ had other bytes$/)
    await expect([rows[0]![2], rows[2]![2]]).toEqual(["kept", "kept"])
  }
})

/** Fallback, the liar first: its verified blocks are kept, the next gateway goes on after them. */
export const FallbackPastALiar = meta.story({
  args: { sources: [gateways[1]!, gateways[0]!, gateways[2]!] },
  beforeEach: () => {
    demo().network.gateways[1]!.faults.lie({ host: "gateway" }, "flip-byte")
  },
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("CID"), cid)
    await userEvent.selectOptions(canvas.getByLabelText("Strategy"), "fallback")
    await userEvent.click(canvas.getByRole("button", { name: download }))
    const report = await canvas.findByRole("region", { name: "Per-source report" }, { timeout: 15_000 })
    const rows = rowsOf(within(report).getByRole("table", { name: "Sources" }))
    await expect(rows).toEqual([
      ["gw-liar.example", "768.0 KB", expect.stringMatching(/^dropped: lied: block baf\w+ had other bytes$/)],
      ["gw-a.example", "256.0 KB", "kept"],
      ["gw-c.example", "0 B", "kept"]
    ])
  }
})
