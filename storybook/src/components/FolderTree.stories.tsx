import { Effect } from "effect"
import { Upload } from "lighthouse-effect"
import { expect, within } from "storybook/test"
import preview from "../../.storybook/preview.ts"
import { uploadPublic } from "../demo/arrange.ts"
import { demo, startDemo } from "../demo/DemoNetwork.ts"
import { paste } from "../demo/paste.ts"
import { alice } from "../demo/wallets.ts"
import { withDemoRuntime } from "../demo/withDemoRuntime.tsx"
import { FolderTree } from "./FolderTree.tsx"

const meta = preview.meta({
  title: "Flows/Folder tree",
  component: FolderTree,
  beforeEach: startDemo(),
  decorators: [withDemoRuntime]
})

/** Uploads `files` (paths inside `album/`) as the folder `album` for Alice; its CID. */
const uploadFolder = (files: Readonly<Record<string, string>>): Promise<string> =>
  demo().run(
    Upload.Upload.use((upload) =>
      upload.folder(
        Upload.Input.files(Object.entries(files).map(([path, text]) => Upload.Input.text(text, `album/${path}`))),
        { apiKey: alice.apiKey }
      )
    ).pipe(Effect.map((entry) => entry.Hash))
  )

/** The rows of the entries table: name, type and size cells. */
const rows = (table: HTMLElement) =>
  within(table)
    .getAllByRole("row")
    .slice(1)
    .map((row) =>
      Array.from((row as HTMLTableRowElement).cells)
        .slice(0, 3)
        .map((cell) => cell.textContent)
    )

let cid = ""

export const Tree = meta.story({
  beforeEach: async () => {
    cid = await uploadFolder({
      "notes.txt": "Backed up by lighthouse-effect.\n",
      "2024/harbour.txt": "The harbour at dawn.\n",
      "2024/summer/lighthouse.txt": "The lighthouse, from the sea.\n"
    })
  },
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("Folder CID"), cid)
    await userEvent.click(canvas.getByRole("button", { name: "List" }))
    const table = await canvas.findByRole("table", { name: "Folder entries" })
    await expect(rows(table)).toEqual([
      ["2024/", "folder", ""],
      ["harbour.txt", "file", "21 B"],
      ["summer/", "folder", ""],
      ["lighthouse.txt", "file", "30 B"],
      ["notes.txt", "file", "32 B"]
    ])
    await expect(canvas.getByText("3 files in 2 folders, 83 B, every block verified")).toBeVisible()
  }
})

export const NotAFolder = meta.story({
  beforeEach: async () => {
    cid = await uploadPublic(alice, new File(["just a file\n"], "file.txt"))
  },
  play: async ({ canvas, userEvent }) => {
    await paste(userEvent, canvas.getByLabelText("Folder CID"), cid)
    await userEvent.click(canvas.getByRole("button", { name: "List" }))
    await expect(await canvas.findByRole("alert")).toHaveTextContent(
      `${cid} is a file, not a folder: download it as a file`
    )
  }
})
