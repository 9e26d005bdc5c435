/**
 * `npm run serve`'s reference page (`/docs` on the API host: the contract's OpenAPI document
 * rendered by Scalar, its script served inline, so it loads offline), as a browser shows it. The
 * served network is started by the project's global setup (storybook/served/globalSetup.ts), so the
 * story is a test only: hidden from Storybook's sidebar.
 */
import { inject } from "vitest"
import { page } from "vitest/browser"
import preview from "../../.storybook/preview.ts"

const title = "The served network's API reference"

const ServedDocs = ({ url }: { readonly url: string }) => (
  <div className="lh-story">
    <iframe title={title} src={url} width={860} height={820} style={{ border: "1px solid #c9ccd1" }} />
  </div>
)

const meta = preview.meta({
  title: "Harness/Served docs",
  component: ServedDocs,
  tags: ["!dev", "!autodocs"]
})

export const ScalarPage = meta.story({
  args: { url: `${inject("servedApiUrl")}/docs` },
  play: async () => {
    const frame = page.frameLocator(page.getByTitle(title))
    // Scalar rendered the contract's document (3 MB, parsed in the page): its title and an operation.
    // The frame is on another origin, out of reach of `expect.element` (it queries from this page):
    // a hover is done by Playwright itself, which waits until the element is visible, or fails.
    await frame.getByRole("heading", { name: "Lighthouse storage API (as lighthouse-effect knows it)" }).hover()
    await frame.getByText("/api/auth/get_auth_message").first().hover()
  }
})
