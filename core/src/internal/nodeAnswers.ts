/**
 * Reading the key nodes' answers where more than one service needs the same reading.
 *
 * @internal
 */

/** The last `message` of the provider's nested error bodies (`{message:{message:{message:"Access Denied"}}}`). */
export const innermostMessage = (body: unknown): unknown => {
  let current = body
  for (let depth = 0; depth < 8; depth++) {
    if (typeof current !== "object" || current === null || !("message" in current)) return current
    current = current.message
  }
  return current
}
