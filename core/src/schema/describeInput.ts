/**
 * A non-string input as the text an error's string field can hold: its kind, not its value (a
 * JavaScript caller may pass anything, a secret included).
 *
 * @internal
 */
export const describeInput = (input: unknown): string =>
  typeof input === "string"
    ? input
    : `(${input === null ? "null" : Array.isArray(input) ? "an array" : `a ${typeof input}`})`
