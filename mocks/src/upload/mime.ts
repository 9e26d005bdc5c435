/**
 * MIME types by file name, for what the upload node records and the gateway serves when a client
 * gave none: the library's own table, so client and mock agree; unknown is `null`.
 */
import { Mime } from "lighthouse-effect"

export const mimeTypeOf = Mime.typeOf
