/**
 * No rendering of an HTTP failure holds a secret that was in its URL: a query value named like a
 * key, token or signature, the credentials before the host. Whatever the cause's text and the
 * server's body repeat of the address, neither `message`, `Errors.describe`, `String`, the
 * error's JSON nor a wrapping error shows it, raw or URL-encoded.
 */
import fc from "fast-check"
import { Errors } from "lighthouse-effect"
import { describe, expect, it } from "vitest"

const secretNames = [
  "token",
  "apiKey",
  "api_key",
  "access_token",
  "X-Amz-Signature",
  "X-Amz-Credential",
  "sig",
  "signature",
  "password",
  "auth",
  "jwt",
  "pinataGatewayToken",
  "client_secret",
  "sessionId"
]

/** A secret worth hiding: at least 8 characters, some of which need encoding in a URL. */
const secret = fc.stringMatching(/^[A-Za-z0-9 /+=:@&?#._~-]{8,40}$/)
const name = fc.constantFrom(...secretNames).chain((n) => fc.constantFrom(n, n.toUpperCase(), n.toLowerCase()))

/** A URL with `planted` in a secret query parameter, in the userinfo, or both; other parameters kept. */
const plantedUrl = fc
  .record({
    secret,
    name,
    where: fc.constantFrom("query", "userinfo", "both"),
    path: fc.constantFrom("/api/v0/add", "/ipfs/bafyroot", "/api/user/user_data_usage", ""),
    before: fc.boolean()
  })
  .map(({ secret, name, where, path, before }) => {
    const encoded = encodeURIComponent(secret)
    const userinfo = where === "query" ? "" : `me:${encoded}@`
    const query =
      where === "userinfo"
        ? "?cid=bafyroot"
        : before
          ? `?cid=bafyroot&${name}=${encoded}`
          : `?${name}=${encoded}&format=car`
    return { secret, url: `https://${userinfo}gateway.example:8443${path}${query}` }
  })

/** Every text a person or a program could see of `error`. */
const renderings = (error: Error) => [
  error.message,
  Errors.describe(error),
  String(error),
  JSON.stringify(error),
  JSON.stringify(new Errors.EncryptionFailed({ cause: error })),
  new Errors.EncryptionFailed({ cause: error }).message
]

/** The failures a request to `url` can end in, with causes and bodies that quote the address. */
const failures = (url: string, secret: string): ReadonlyArray<Error> => {
  const system = Object.assign(new Error(`connect ECONNREFUSED for ${url}`), { code: "ECONNREFUSED" })
  return [
    new Errors.NetworkError({ method: "POST", url, cause: new TypeError("fetch failed", { cause: system }) }),
    new Errors.NetworkError({ method: "GET", url, cause: new TypeError(`Failed to parse URL from ${url}`) }),
    new Errors.RequestTimedOut({ method: "GET", url, timeoutMillis: 8000 }),
    new Errors.InvalidResponse({ method: "GET", url, detail: `Decode error (200 GET ${url})` }),
    new Errors.RequestFailed({ method: "GET", status: 401, url, body: `{"error":"bad token ${secret}"}` }),
    new Errors.HttpStatusError({ method: "GET", status: 404, url, body: `Cannot GET ${url}` })
  ]
}

describe("redaction", () => {
  it("no rendering of a failure shows a secret planted in its URL", () => {
    fc.assert(
      fc.property(plantedUrl, ({ secret, url }) => {
        const forms = [secret, encodeURIComponent(secret)]
        for (const error of failures(url, secret)) {
          for (const text of renderings(error)) {
            for (const form of forms) expect(text).not.toContain(form)
          }
          // The rest of the address is kept: a person can still tell where the request went.
          expect(Errors.describe(error)).toContain("gateway.example:8443")
        }
      }),
      { numRuns: 300 }
    )
  })

  it("an address without secrets is kept to the letter, and what is hidden is said", () => {
    const plain = "http://127.0.0.1:8732/api/v0/add?wrap-with-directory=false&cid-version=1"
    expect(new Errors.NetworkError({ method: "POST", url: plain, cause: new Error("x") }).url).toBe(plain)
    const secret = new Errors.RequestTimedOut({
      method: "GET",
      url: "https://user:pw@gw.example/ipfs/bafy?format=car&token=abc123xyz#frag",
      timeoutMillis: 5
    })
    expect(secret.url).toBe("https://<redacted>@gw.example/ipfs/bafy?format=car&token=<redacted>#<redacted>")
    // The API's public values stay readable: an address, an IPNS key's name.
    const address = "https://api.example/api/auth/get_message?publicKey=0xabc&keyName=site"
    expect(new Errors.RequestFailed({ status: 500, url: address }).url).toBe(address)
  })
})
