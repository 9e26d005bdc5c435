/**
 * A quote of files about to be uploaded: each file's size, type and name (sized locally by
 * `upload/Sizing.ts`: paths are walked, streams need their size), against the account's usage.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type { Hosts } from "../internal/Hosts.ts"
import type { Credential } from "../schema/Credential.ts"
import * as Sizing from "../upload/Sizing.ts"
import type { Quote, QuoteInput } from "./Models.ts"
import { usage } from "./Records.ts"

export const quote = Effect.fn("Files.quote")(function* (
  hosts: Hosts,
  fs: FileSystem.FileSystem,
  apiKey: Credential,
  input: QuoteInput | ReadonlyArray<QuoteInput>
) {
  const inputs: ReadonlyArray<QuoteInput> = Array.isArray(input) ? input : [input as QuoteInput]
  // Local inputs first: a bad path fails before the network is asked.
  const metaData = (yield* Effect.forEach(inputs, (one) => Sizing.sizeOf(fs, one))).flat()
  const { dataLimit, dataUsed, walrusDataLimit, walrusDataUsed } = yield* usage(hosts, apiKey)
  return {
    metaData,
    dataLimit,
    dataUsed,
    ...(walrusDataLimit === undefined ? {} : { walrusDataLimit }),
    ...(walrusDataUsed === undefined ? {} : { walrusDataUsed }),
    totalSize: metaData.reduce((total, item) => total + item.fileSize, 0)
  } satisfies Quote
})
