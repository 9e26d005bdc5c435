/**
 * What an error or a log line may say about a request: its URL without the secrets a URL can
 * carry (credentials before the host, query parameters named like a key, token, signature or
 * password, the fragment), and a failure's underlying cause in a few words (`connect
 * ECONNREFUSED`), with those secrets taken out of its text too.
 *
 * Works on the text, not on a parsed `URL`: an address without secrets is kept to the letter
 * (no trailing slash added, no re-encoding), and one that does not parse is still cleaned.
 *
 * @internal (not exported by `Errors.ts`)
 */

/** What a secret is replaced with. */
export const REDACTED = "<redacted>"

/** Query parameter names that carry a secret: `apiKey`, `access_token`, `X-Amz-Signature`, `sig`, `password`… */
const SECRET_NAME = /key|token|sig|secret|pass|pwd|auth|jwt|cred|session|bearer/i

/** Names the pattern catches that this API uses for public values: an address (`publicKey`), an IPNS key's name. */
const PUBLIC_NAME = /^(public[-_]?key|keyName)$/i

const isSecretName = (name: string) => SECRET_NAME.test(name) && !PUBLIC_NAME.test(name)

/** `scheme://userinfo@`: the userinfo is everything of the authority before its last `@`. */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i

const decode = (text: string) => {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "))
  } catch {
    return text
  }
}

/** The secret values `url` carries, as written in it and decoded (what a cause's text may repeat). */
export const secretsOf = (url: string): ReadonlyArray<string> => {
  const found: Array<string> = []
  const userinfo = USERINFO.exec(url)?.[2]
  if (userinfo !== undefined && userinfo !== "") found.push(userinfo, ...userinfo.split(":"))
  const hash = url.indexOf("#")
  if (hash !== -1 && hash < url.length - 1) found.push(url.slice(hash + 1))
  const beforeHash = hash === -1 ? url : url.slice(0, hash)
  const query = beforeHash.indexOf("?")
  if (query !== -1) {
    for (const pair of beforeHash.slice(query + 1).split("&")) {
      const equals = pair.indexOf("=")
      if (equals === -1) continue
      const value = pair.slice(equals + 1)
      if (value !== "" && isSecretName(decode(pair.slice(0, equals)))) found.push(value)
    }
  }
  return [...new Set(found.flatMap((secret) => [secret, decode(secret)]))].filter((secret) => secret !== "")
}

/** `url` with its userinfo, its secret query values and its fragment replaced by `<redacted>`. */
export const redactUrl = (url: string): string => {
  const hash = url.indexOf("#")
  const withoutHash = hash === -1 ? url : `${url.slice(0, hash)}#${REDACTED}`
  const end = hash === -1 ? url.length : hash
  const query = url.slice(0, end).indexOf("?")
  const withQuery =
    query === -1
      ? withoutHash
      : url.slice(0, query + 1) +
        url
          .slice(query + 1, end)
          .split("&")
          .map((pair) => {
            const equals = pair.indexOf("=")
            return equals !== -1 && isSecretName(decode(pair.slice(0, equals)))
              ? `${pair.slice(0, equals)}=${REDACTED}`
              : pair
          })
          .join("&") +
        withoutHash.slice(end)
  return withQuery.replace(USERINFO, (_match, scheme: string) => `${scheme}${REDACTED}@`)
}

/**
 * `text` with `url` and each of its secrets replaced (a cause's message may quote the address).
 * A secret shorter than 4 characters is left alone where it is not part of the address: replacing
 * every `1` of a message would say nothing and hide the rest.
 */
export const scrub = (text: string, url: string): string =>
  secretsOf(url)
    .filter((secret) => secret.length >= 4)
    .sort((a, b) => b.length - a.length)
    .reduce((cleaned, secret) => cleaned.split(secret).join(REDACTED), text.split(url).join(redactUrl(url)))

/** `text` on one line: a schema's error spans several. */
export const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, " ").trim()

interface ErrorLike {
  readonly message?: unknown
  readonly code?: unknown
  readonly syscall?: unknown
  readonly cause?: unknown
  readonly errors?: unknown
}

const isObject = (value: unknown): value is ErrorLike => typeof value === "object" && value !== null

/**
 * The innermost error of `cause`'s chain: `fetch` wraps the socket's error (`fetch failed`
 * caused by `connect ECONNREFUSED 127.0.0.1:8732`), Effect's HTTP client wraps that again.
 */
const innermost = (cause: unknown): unknown => {
  let current = cause
  for (let depth = 0; depth < 8 && isObject(current) && isObject(current.cause); depth++) current = current.cause
  // A connection tried on several addresses (`localhost` as ::1 and 127.0.0.1) fails with all of them.
  if (isObject(current) && Array.isArray(current.errors) && current.errors.length > 0 && isObject(current.errors[0])) {
    return current.errors[0]
  }
  return current
}

/**
 * A failure's underlying cause in a few words: a system error as `{syscall} {code}` (`connect
 * ECONNREFUSED`, `getaddrinfo ENOTFOUND`), else the innermost error's message.
 */
export const causeText = (cause: unknown): string => {
  const inner = innermost(cause)
  if (!isObject(inner)) return inner === undefined ? "no answer" : String(inner)
  if (typeof inner.syscall === "string" && typeof inner.code === "string") return `${inner.syscall} ${inner.code}`
  const message = typeof inner.message === "string" && inner.message !== "" ? inner.message : undefined
  if (typeof inner.code === "string") return message === undefined ? inner.code : `${message} (${inner.code})`
  return message ?? String(inner)
}

/**
 * The cause an error keeps: the innermost error's name, text and system fields, its text without
 * `url`'s secrets. Not the wrappers: they hold the request, whose URL has them.
 */
export const cleanCause = (cause: unknown, url: string): Error => {
  const inner = innermost(cause)
  if (!isObject(inner)) return new Error(scrub(String(inner ?? "no answer"), url))
  const message = typeof inner.message === "string" ? inner.message : String(inner)
  const cleaned = new Error(scrub(message, url))
  const fields = inner as Record<string, unknown>
  cleaned.name = typeof fields.name === "string" ? fields.name : "Error"
  for (const field of ["code", "syscall", "errno", "address", "port"] as const) {
    if (fields[field] !== undefined) Object.assign(cleaned, { [field]: fields[field] })
  }
  return cleaned
}
