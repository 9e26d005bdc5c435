import addonA11y from "@storybook/addon-a11y"
import addonDocs from "@storybook/addon-docs"
import { definePreview } from "@storybook/react-vite"
import { setupWorker } from "msw/browser"
import addonMsw from "msw-storybook-addon"
import "../src/ui/lighthouse.css"

export default definePreview({
  addons: [
    addonDocs(),
    addonA11y(),
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
