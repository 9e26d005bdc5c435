import { definePreview } from "@storybook/react-vite"
import { setupWorker } from "msw/browser"
import addonMsw from "msw-storybook-addon"
import "../src/ui/lighthouse.css"

export default definePreview({
  addons: [
    addonMsw(async () => {
      const worker = setupWorker()
      // Stories add the mock network's handlers; anything else (the local chain, Vite) goes through.
      await worker.start({ quiet: true, onUnhandledFrame: "bypass" })
      return worker
    })
  ],
  // Accessibility violations fail the story's test.
  parameters: { a11y: { test: "error" } }
})
