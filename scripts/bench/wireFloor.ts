/**
 * The bare Node floors of the "Against the wire" benchmark (`wire.ts`), run by plain `node` (no
 * loader, no library): fixed code, written once and not tuned afterwards, so the library is held
 * against what Node itself needs for the same bytes.
 *
 * `node wireFloor.ts <case> <args…>`:
 *
 * - `none`: the imports only (the start-up every other case is measured less);
 * - `upload <node> <apiKey> <file>`: `fs.createReadStream` (1 MiB reads) piped into one
 *   `http.request` as a `multipart/form-data` body to `/api/v0/add`; prints the node's answer;
 * - `download <url> <out>`: `http.request` piped into `fs.createWriteStream`;
 * - `none-loaded`, `download-loaded <url> <out>`: the same, after loading what the library's child
 *   loads (`lighthouse-effect`, `lighthouse-effect/node`, `effect`, `viem/accounts`) and using none of
 *   it: the bare pipeline in a process with the library's heap, which every full collection marks;
 * - `sha256 <file>`: SHA-256 of the file (1 MiB reads), printed;
 * - `aes <file>`: AES-256-GCM over the file (1 MiB reads), the ciphertext dropped.
 */
import { createCipheriv, createHash, randomBytes } from "node:crypto"
import { createReadStream, createWriteStream, statSync } from "node:fs"
import { request } from "node:http"
import { pipeline } from "node:stream/promises"

const READ = { highWaterMark: 1024 * 1024 }

const upload = async (node: string, apiKey: string, file: string) => {
  const boundary = "----wire-floor-boundary"
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="file.bin"\r\n` +
      "Content-Type: application/octet-stream\r\n\r\n"
  )
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
  const req = request(`${node}/api/v0/add?cid-version=1&wrap-with-directory=false`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${apiKey}`,
      "content-type": `multipart/form-data; boundary=${boundary}`,
      "content-length": head.length + statSync(file).size + tail.length
    }
  })
  const answer = new Promise<string>((resolve, reject) => {
    req.on("error", reject)
    req.on("response", (response) => {
      let text = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => {
        text += chunk
      })
      response.on("end", () =>
        response.statusCode === 200 ? resolve(text) : reject(new Error(`${response.statusCode}: ${text}`))
      )
    })
  })
  req.write(head)
  await pipeline(createReadStream(file, READ), req, { end: false })
  req.end(tail)
  console.log((await answer).trim())
}

const download = (url: string, out: string) =>
  new Promise<void>((resolve, reject) => {
    request(url, (response) => {
      if (response.statusCode !== 200) reject(new Error(`download answered ${response.statusCode}`))
      else pipeline(response, createWriteStream(out)).then(resolve, reject)
    })
      .on("error", reject)
      .end()
  })

const sha256 = async (file: string) => {
  const hash = createHash("sha256")
  for await (const chunk of createReadStream(file, READ)) hash.update(chunk as Buffer)
  console.log(hash.digest("hex"))
}

const aes = async (file: string) => {
  const cipher = createCipheriv("aes-256-gcm", randomBytes(32), randomBytes(12))
  let bytes = 0
  for await (const chunk of createReadStream(file, READ)) bytes += cipher.update(chunk as Buffer).length
  cipher.final()
  console.log(bytes)
}

const [which, ...args] = process.argv.slice(2)
// What the library's child loads (`client.ts`); a module stays in the heap for the process's life.
if (which?.endsWith("-loaded")) {
  await Promise.all([
    import("lighthouse-effect"),
    import("lighthouse-effect/node"),
    import("effect"),
    import("viem/accounts")
  ])
}
switch (which?.replace(/-loaded$/, "")) {
  case "none":
    break
  case "upload":
    await upload(args[0]!, args[1]!, args[2]!)
    break
  case "download":
    await download(args[0]!, args[1]!)
    break
  case "sha256":
    await sha256(args[0]!)
    break
  case "aes":
    await aes(args[0]!)
    break
  default:
    throw new Error(`unknown case ${which}`)
}
