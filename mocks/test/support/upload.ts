/**
 * Uploads to a mock upload node as kubo's HTTP clients send them: one multipart `file` field per
 * file, the API key as the bearer token.
 */

/** The production upload host, which the mock network answers for by default. */
export const uploadHost = "https://upload.lighthouse.storage"

export interface AddOptions {
  /** The query string of `/api/v0/add`, without `?` (`cid-version=0`…). */
  readonly query?: string
  /** The upload node's base URL. Default `uploadHost`. */
  readonly node?: string
  /** More request headers. */
  readonly headers?: Record<string, string>
}

/** POSTs `files` (name, content) to `/api/v0/add` with `apiKey`. */
export const addFiles = (
  apiKey: string,
  files: ReadonlyArray<readonly [name: string, content: Blob]>,
  options: AddOptions = {}
): Promise<Response> => {
  const form = new FormData()
  for (const [name, content] of files) form.append("file", content, name)
  const query = options.query === undefined ? "" : `?${options.query}`
  return fetch(`${options.node ?? uploadHost}/api/v0/add${query}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}`, ...options.headers },
    body: form
  })
}

/** POSTs one file to `/api/v0/add` with `apiKey`. */
export const addFile = (apiKey: string, name: string, content: Blob, options: AddOptions = {}): Promise<Response> =>
  addFiles(apiKey, [[name, content]], options)
