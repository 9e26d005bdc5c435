/**
 * Keeping content that is already somewhere: `pin <cid>` (content on IPFS joins the account's
 * uploads) and `pdp request|status|wait <cid>` (a PDP storage deal of a stored file). Each is one
 * call of the library's `Files` service; `pdp wait` is its `awaitPdpDeal`, so the polling and the
 * time-out are the library's.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Argument, Command, Flag } from "effect/cli"
import { Files } from "lighthouse-effect"
import { withLibrary } from "../Client.ts"
import * as Credentials from "../Credentials.ts"
import * as Output from "../Output.ts"

const cid = Argument.String("cid").pipe(Argument.withDescription("The content's CID"))
const apiKeyFile = Credentials.apiKeyFile

export const pin = Command.make(
  "pin",
  {
    apiKeyFile,
    cid,
    name: Flag.String("name").pipe(Flag.withDescription("The record's file name (default: the CID)"), Flag.optional)
  },
  ({ apiKeyFile, cid, name }) =>
    Effect.gen(function* () {
      const apiKey = yield* Credentials.apiKey(apiKeyFile)
      const input = Option.match(name, { onNone: () => ({ cid }), onSome: (fileName) => ({ cid, fileName }) })
      const record = yield* Files.Files.use((files) => files.pin(apiKey, input))
      yield* Output.result(record, [`pinned ${record.cid} as ${record.fileName}`])
    }).pipe(withLibrary)
).pipe(Command.withDescription("Pins content already on IPFS to the account (it joins `uploads` and the quota)"))

const request = Command.make("request", { apiKeyFile, cid }, ({ apiKeyFile, cid }) =>
  Effect.gen(function* () {
    const apiKey = yield* Credentials.apiKey(apiKeyFile)
    yield* Files.Files.use((files) => files.requestPdpDeal(apiKey, cid))
    yield* Output.result({ cid, requested: true }, [`PDP deal requested for ${cid}`])
  }).pipe(withLibrary)
).pipe(Command.withDescription("Asks for a PDP deal of a stored file (100 MiB at most)"))

const status = Command.make("status", { cid }, ({ cid }) =>
  Effect.gen(function* () {
    const deals = yield* Files.Files.use((files) => files.pdpDealStatus(cid))
    yield* Output.result(
      deals,
      deals.length === 0 ? [`no PDP deal for ${cid} yet`] : deals.map((d) => `${d.id}  ${d.dealStatus}  ${d.updatedAt}`)
    )
  }).pipe(withLibrary)
).pipe(Command.withDescription("The PDP deals of a CID"))

const wait = Command.make(
  "wait",
  {
    cid,
    interval: Flag.Int("interval").pipe(Flag.withDescription("Seconds between two reads"), Flag.withDefault(60)),
    timeout: Flag.Int("timeout").pipe(Flag.withDescription("Seconds to wait in all"), Flag.withDefault(2400))
  },
  ({ cid, interval, timeout }) =>
    Effect.gen(function* () {
      const deal = yield* Files.Files.use((files) =>
        files.awaitPdpDeal(cid, { interval: `${interval} seconds`, timeout: `${timeout} seconds` })
      )
      yield* Output.result(deal, [`${deal.id}  ${deal.dealStatus}  ${JSON.stringify(deal.transactionDetails)}`])
    }).pipe(withLibrary)
).pipe(Command.withDescription("Waits until a PDP deal of the CID is completed; exit 1 on the time-out"))

export const pdp = Command.make("pdp").pipe(
  Command.withDescription("PDP storage deals: request, status, wait"),
  Command.withSubcommands([request, status, wait])
)
