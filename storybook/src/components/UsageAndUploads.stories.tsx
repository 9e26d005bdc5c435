import { expect, within } from "storybook/test"
import preview from "../../.storybook/preview.ts"
import { uploadEncrypted, uploadPublic } from "../demo/arrange.ts"
import { startDemo } from "../demo/DemoNetwork.ts"
import { alice } from "../demo/wallets.ts"
import { withDemoRuntime } from "../demo/withDemoRuntime.tsx"
import { UsageAndUploads } from "./UsageAndUploads.tsx"

const meta = preview.meta({
  title: "Flows/Usage and uploads",
  component: UsageAndUploads,
  args: { apiKey: alice.apiKey },
  // Three records a page, so paging shows with a few files.
  beforeEach: startDemo({ pageSize: 3 }),
  decorators: [withDemoRuntime]
})

/** The names in the uploads table, top to bottom. */
const names = (table: HTMLElement) =>
  within(table)
    .getAllByRole("row")
    .slice(1)
    .map((row) => (row as HTMLTableRowElement).cells[0]?.textContent)

export const Paging = meta.story({
  beforeEach: async () => {
    for (const n of [1, 2, 3, 4, 5, 6, 7]) await uploadPublic(alice, new File([`report ${n}\n`], `report-${n}.txt`))
    await uploadEncrypted(alice, new File(["secret"], "secret.txt"))
  },
  play: async ({ canvas, userEvent }) => {
    const table = await canvas.findByRole("table", { name: "Uploads" })
    // 7 × 9 bytes, and 6 bytes encrypted into 50.
    await expect(canvas.getByText("113 B of 1.00 GB used")).toBeVisible()
    await expect(canvas.getByText("Files 1–3 of 8")).toBeVisible()
    await expect(names(table)).toEqual(["secret.txt", "report-7.txt", "report-6.txt"])
    await expect(within(table).getAllByRole("row")[1]).toHaveTextContent("yes")
    await expect(canvas.getByRole("button", { name: "Previous page" })).toBeDisabled()

    await userEvent.click(canvas.getByRole("button", { name: "Next page" }))
    await expect(await canvas.findByText("Files 4–6 of 8")).toBeVisible()
    await expect(names(canvas.getByRole("table", { name: "Uploads" }))).toEqual([
      "report-5.txt",
      "report-4.txt",
      "report-3.txt"
    ])
    await userEvent.click(canvas.getByRole("button", { name: "Next page" }))
    await expect(await canvas.findByText("Files 7–8 of 8")).toBeVisible()
    await expect(canvas.getByRole("button", { name: "Next page" })).toBeDisabled()
    await userEvent.click(canvas.getByRole("button", { name: "Previous page" }))
    await expect(await canvas.findByText("Files 4–6 of 8")).toBeVisible()
  }
})

export const NoUploads = meta.story({
  play: async ({ canvas }) => {
    await expect(await canvas.findByText("No uploads yet.")).toBeVisible()
    await expect(canvas.getByRole("meter", { name: "Storage used" })).toHaveAttribute("value", "0")
  }
})

export const WrongApiKey = meta.story({
  args: { apiKey: "not-a-key" },
  play: async ({ canvas }) => {
    await expect(await canvas.findByRole("alert")).toHaveTextContent("Request failed with status code 401")
  }
})
