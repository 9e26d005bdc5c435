/**
 * A file's media type from its name, for the `Mime-Type` upload header and quotes. A short
 * table of common types (the provider used the `mime-types` package); unknown extensions give
 * `undefined` rather than a guess.
 *
 * @internal
 */

const types: Readonly<Record<string, string>> = {
  aac: "audio/aac",
  avif: "image/avif",
  bmp: "image/bmp",
  car: "application/vnd.ipld.car",
  css: "text/css",
  csv: "text/csv",
  doc: "application/msword",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  flac: "audio/flac",
  gif: "image/gif",
  gz: "application/gzip",
  htm: "text/html",
  html: "text/html",
  ico: "image/vnd.microsoft.icon",
  jpeg: "image/jpeg",
  jpg: "image/jpeg",
  js: "application/javascript",
  json: "application/json",
  md: "text/markdown",
  mjs: "application/javascript",
  mov: "video/quicktime",
  mp3: "audio/mpeg",
  mp4: "video/mp4",
  mpeg: "video/mpeg",
  oga: "audio/ogg",
  ogg: "audio/ogg",
  ogv: "video/ogg",
  otf: "font/otf",
  pdf: "application/pdf",
  png: "image/png",
  ppt: "application/vnd.ms-powerpoint",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  svg: "image/svg+xml",
  tar: "application/x-tar",
  tif: "image/tiff",
  tiff: "image/tiff",
  ts: "video/mp2t",
  ttf: "font/ttf",
  txt: "text/plain",
  wasm: "application/wasm",
  wav: "audio/wav",
  weba: "audio/webm",
  webm: "video/webm",
  webp: "image/webp",
  woff: "font/woff",
  woff2: "font/woff2",
  xls: "application/vnd.ms-excel",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  xml: "application/xml",
  yaml: "application/yaml",
  yml: "application/yaml",
  zip: "application/zip"
}

/** The media type of a file name's extension, or `undefined`. */
export const lookup = (name: string): string | undefined => {
  const base = name.slice(Math.max(name.lastIndexOf("/"), name.lastIndexOf("\\")) + 1)
  const dot = base.lastIndexOf(".")
  if (dot <= 0) return undefined
  return types[base.slice(dot + 1).toLowerCase()]
}

/**
 * The media type of a file name's extension, or `null` when unknown: how quotes list a file's type
 * (the provider's gave `false`) and the mock upload node records it.
 */
export const typeOf = (name: string): string | null => lookup(name) ?? null
