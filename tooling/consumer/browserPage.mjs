// The browser page of examples/browser, as the consumer test runs it: its module bundled by esbuild
// for the browser (a `node:` import fails the bundle), the page served on loopback beside it, opened
// in headless Chromium (@sparticuz/chromium, the Storybook tests' browser) with the served network's
// hosts in its address; a file is picked, the form sent, and the page's answer returned.
import { readFileSync } from "node:fs"
import { mkdir } from "node:fs/promises"
import { createServer } from "node:http"
import { join } from "node:path"
import Chromium from "@sparticuz/chromium"
import { build } from "esbuild"
import { chromium } from "playwright-core"

/** Bundles `entry` into `outDir/page.js`, resolving packages under `conditions` (browser's). */
export const bundlePage = async (entry, outDir, conditions = ["browser"]) => {
  await build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "browser",
    conditions,
    outfile: join(outDir, "page.js"),
    logLevel: "silent"
  })
  return join(outDir, "page.js")
}

/** The browser, unpacked under `cacheDir` (this checkout's node_modules/.cache), or `CHROMIUM_PATH`. */
const executablePath = async (cacheDir) => {
  if (process.env.CHROMIUM_PATH !== undefined) return process.env.CHROMIUM_PATH
  const previous = process.env.TMPDIR
  process.env.TMPDIR = cacheDir
  await mkdir(cacheDir, { recursive: true })
  try {
    return await Chromium.executablePath()
  } finally {
    if (previous === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = previous
  }
}

/**
 * Opens `html` (with `script`, the bundle, as its page.js) in Chromium at `?api=…&node=…&gateway=…&
 * encryption=…` of `urls`, picks `file` ({ name, text }), sends the form and resolves with the
 * page's `#result` once it is final (not "uploading …"), within `timeoutMs`.
 */
export const runPage = async ({ html, script, urls, file, cacheDir, timeoutMs = 120_000 }) => {
  const server = createServer((request, response) => {
    if (request.url === "/page.js")
      response.writeHead(200, { "content-type": "text/javascript" }).end(readFileSync(script))
    else response.writeHead(200, { "content-type": "text/html" }).end(readFileSync(html))
  })
  await new Promise((listening) => server.listen(0, "127.0.0.1", listening))
  const browser = await chromium.launch({
    executablePath: await executablePath(cacheDir),
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
  })
  try {
    const tab = await browser.newPage()
    const errors = []
    tab.on("pageerror", (error) => errors.push(String(error)))
    const query = new URLSearchParams(
      Object.entries(urls).filter(([host]) => ["api", "node", "gateway", "encryption"].includes(host))
    )
    await tab.goto(`http://127.0.0.1:${server.address().port}/index.html?${query}`)
    await tab.setInputFiles("#file", { name: file.name, mimeType: "text/plain", buffer: Buffer.from(file.text) })
    await tab.click("button[type=submit]")
    const result = tab.locator("#result")
    await tab.waitForFunction(
      () => {
        const text = document.querySelector("#result")?.textContent ?? ""
        return text !== "" && !text.startsWith("uploading")
      },
      undefined,
      { timeout: timeoutMs }
    )
    const text = (await result.textContent()) ?? ""
    return errors.length === 0 ? text : `${text}\n${errors.join("\n")}`
  } finally {
    await browser.close()
    server.close()
  }
}
