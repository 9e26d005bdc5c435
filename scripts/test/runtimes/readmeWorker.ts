/**
 * The Cloudflare Worker example of docs/runtimes.md, served by workerd, called as its section says:
 * `PUT /<name>` stores the body and answers its CID, `GET /<cid>` answers the verified bytes, and
 * a bad CID is answered with the library's typed error.
 */

class ExampleFailed extends Error {
  constructor(detail: string) {
    super(`the worker of docs/runtimes.md: ${detail}`)
    this.name = "ExampleFailed"
  }
}

const expectJson = async (response: Response, status: number): Promise<Record<string, unknown>> => {
  const text = await response.text()
  if (response.status !== status) throw new ExampleFailed(`HTTP ${response.status} (not ${status}): ${text}`)
  return JSON.parse(text) as Record<string, unknown>
}

export const checkReadmeWorker = async (url: string): Promise<void> => {
  const text = `stored by a worker at ${new Date().toISOString()}\n`
  const stored = await expectJson(await fetch(`${url}/note.txt`, { method: "PUT", body: text }), 200)
  const cid = stored.cid
  if (typeof cid !== "string" || !cid.startsWith("bafk"))
    throw new ExampleFailed(`PUT answered ${JSON.stringify(stored)}`)
  const read = await fetch(`${url}/${cid}`)
  const back = await read.text()
  if (read.status !== 200 || back !== text) throw new ExampleFailed(`GET /${cid}: HTTP ${read.status} ${back}`)
  const refused = await expectJson(await fetch(`${url}/not-a-cid`), 400)
  if (refused.error !== "InvalidCid" || refused.message !== "Invalid CID")
    throw new ExampleFailed(`GET /not-a-cid answered ${JSON.stringify(refused)}`)
}
