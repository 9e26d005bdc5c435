/**
 * Content identifiers. A CID must match one of the forms the provider accepts
 * (`Qm…`, base32 `b…`/`B…`, base58 `z…`, base16 `F…`), anchored at both ends, and must also
 * decode as a real CID:
 * the provider's unanchored pattern let `garbage/Qm…/more` through.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { base16upper } from "multiformats/bases/base16"
import { base32, base32upper } from "multiformats/bases/base32"
import { base58btc } from "multiformats/bases/base58"
import { CID } from "multiformats/cid"
import { InvalidCid } from "../Errors.ts"
import { describeInput } from "./describeInput.ts"

const b58 = "[1-9A-HJ-NP-Za-km-z]"
const forms: ReadonlyArray<{ readonly pattern: RegExp; readonly decode: (s: string) => CID }> = [
  { pattern: new RegExp(`^Qm${b58}{44}$`), decode: (s) => CID.parse(s, base58btc) },
  { pattern: /^b[a-z2-7]{58}$/, decode: (s) => CID.parse(s, base32) },
  { pattern: /^B[A-Z2-7]{58}$/, decode: (s) => CID.parse(s, base32upper) },
  { pattern: new RegExp(`^z${b58}{48}$`), decode: (s) => CID.parse(s, base58btc) },
  { pattern: /^F[0-9A-F]{50}$/, decode: (s) => CID.parse(s, base16upper) }
]

/** Whether `input` is one of the accepted forms and decodes as a CID. */
export const isValidCid = (input: string): boolean => {
  const form = forms.find((f) => f.pattern.test(input))
  if (form === undefined) return false
  try {
    form.decode(input)
    return true
  } catch {
    return false
  }
}

export const Cid = Schema.String.check(
  Schema.makeFilter(isValidCid, { expected: "a CID (Qm…, b…, B…, z… or F…)" })
).pipe(Schema.brand("Cid"))
export type Cid = typeof Cid.Type

/** Checks a CID, failing with the catalogue's `Invalid CID` (also for a non-string from JavaScript). */
export const parseCid = (input: string): Effect.Effect<Cid, InvalidCid> =>
  typeof input === "string" && isValidCid(input)
    ? Effect.succeed(input as Cid)
    : Effect.fail(new InvalidCid({ cid: describeInput(input) }))

/** The CID a checked `Cid` spells. */
export const decodeCid = (cid: Cid): CID => forms.find((f) => f.pattern.test(cid))!.decode(cid)
