/**
 * The two `Buffer` calls the mock key nodes make (`mocks/src/keyNodes/Auth.ts`: base64url of
 * random bytes, hex signatures to bytes), for browsers, which have no `Buffer`. Handed to that one
 * module by the `mockBuffer` Vite plugin (`.storybook/mockBuffer.ts`), never installed globally:
 * other libraries take a global `Buffer` for Node's and would call what this does not have.
 */
import { Result } from "effect"
import { Base64Url, Hex } from "effect/encoding"

const withToString = (bytes: Uint8Array) =>
  Object.assign(bytes, {
    toString: (encoding?: string): string => {
      if (encoding === "base64url") return Base64Url.encode(bytes)
      if (encoding === "hex") return Hex.encode(bytes)
      throw new Error(`bufferShim: toString(${encoding}) is not shimmed`)
    }
  })

export const Buffer = {
  from: (input: ArrayLike<number> | string, encoding?: string) => {
    if (typeof input !== "string") return withToString(Uint8Array.from(input))
    if (encoding !== "hex") throw new Error(`bufferShim: Buffer.from(string, ${encoding}) is not shimmed`)
    return withToString(Result.getOrThrow(Hex.decode(input)))
  }
}
