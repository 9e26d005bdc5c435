/**
 * MIME types by file extension, for what the upload node records and the gateway serves when a
 * client gave none. A short table of common types; anything else is unknown (`null`).
 */

const types: Readonly<Record<string, string>> = {
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  html: "text/html",
  htm: "text/html",
  css: "text/css",
  js: "text/javascript",
  mjs: "text/javascript",
  json: "application/json",
  xml: "application/xml",
  pdf: "application/pdf",
  zip: "application/zip",
  gz: "application/gzip",
  tar: "application/x-tar",
  wasm: "application/wasm",
  car: "application/vnd.ipld.car",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
  svg: "image/svg+xml",
  ico: "image/x-icon",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  ogg: "audio/ogg",
  mp4: "video/mp4",
  webm: "video/webm",
  mov: "video/quicktime"
}

/** The MIME type of a file name, or `null` when the extension is not known. */
export const mimeTypeOf = (fileName: string): string | null => {
  const dot = fileName.lastIndexOf(".")
  if (dot === -1 || dot === fileName.length - 1) return null
  return types[fileName.slice(dot + 1).toLowerCase()] ?? null
}
