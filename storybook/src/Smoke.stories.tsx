import { expect } from "storybook/test"
import preview from "../.storybook/preview.ts"
import { Smoke } from "./Smoke.tsx"

const meta = preview.meta({ component: Smoke })
export const Default = meta.story({
  play: async ({ canvas, userEvent }) => {
    await userEvent.click(canvas.getByRole("button"))
    await expect(canvas.getByRole("button")).toHaveTextContent("clicked 1")
  }
})
