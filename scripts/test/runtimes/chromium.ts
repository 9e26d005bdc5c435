/**
 * Headless Chromium (from @sparticuz/chromium, the browser of the Storybook tests) running the
 * scenario worker's bundle in a page served on loopback: the page imports the worker module and
 * calls its `fetch` handler with the input, as workerd does.
 */
import { mkdir, readFile } from "node:fs/promises"
import { createServer, type Server } from "node:http"
import { join } from "node:path"
import Chromium from "@sparticuz/chromium"
import { type Browser, chromium } from "playwright-core"
import { root } from "./processes.ts"

/**
 * The browser, unpacked where the Storybook tests unpack it (this checkout's
 * node_modules/.cache, not the machine's shared temp folder); `CHROMIUM_PATH` picks another.
 */
const executablePath = async (): Promise<string> => {
  if (process.env.CHROMIUM_PATH !== undefined) return process.env.CHROMIUM_PATH
  const previous = process.env.TMPDIR
  process.env.TMPDIR = join(root, "node_modules", ".cache", "chromium")
  await mkdir(process.env.TMPDIR, { recursive: true })
  try {
    return await Chromium.executablePath()
  } finally {
    if (previous === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = previous
  }
}

const page = `<!doctype html><script type="module">
import worker from "./worker.js"
window.scenarioWorker = worker
</script>`

/** Serves the page and the bundle on a free loopback port. */
const servePage = (bundle: string) =>
  new Promise<Server>((done) => {
    const server = createServer(async (request, response) => {
      if (request.url === "/worker.js") {
        response.writeHead(200, { "content-type": "text/javascript" }).end(await readFile(bundle))
      } else response.writeHead(200, { "content-type": "text/html" }).end(page)
    })
    server.listen(0, "127.0.0.1", () => done(server))
  })

export interface ChromiumPage {
  readonly version: string
  /** Calls the worker's `fetch` with `body` (POST); its status and text. */
  readonly call: (body: string) => Promise<{ readonly status: number; readonly text: string }>
  readonly close: () => Promise<void>
}

/** Opens the bundled scenario worker (an ES module with a default `fetch` handler) in Chromium. */
export const openInChromium = async (bundle: string): Promise<ChromiumPage> => {
  const server = await servePage(bundle)
  let browser: Browser | undefined
  try {
    browser = await chromium.launch({
      executablePath: await executablePath(),
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
    })
    const tab = await browser.newPage()
    await tab.goto(`http://127.0.0.1:${(server.address() as { port: number }).port}/`)
    await tab.waitForFunction(() => "scenarioWorker" in window)
    const opened = browser
    return {
      version: opened.version(),
      call: (body) =>
        tab.evaluate(async (text) => {
          const worker = (window as unknown as { scenarioWorker: { fetch: (r: Request) => Promise<Response> } })
            .scenarioWorker
          const response = await worker.fetch(new Request(location.href, { method: "POST", body: text }))
          return { status: response.status, text: await response.text() }
        }, body),
      close: async () => {
        await opened.close()
        server.close()
      }
    }
  } catch (error) {
    await browser?.close()
    server.close()
    throw error
  }
}
