/**
 * IPNS keys of the account: `keys generate`, `publish`, `list`, `remove` (the provider's `ipns` is
 * an alias). Each is one call of the library's `Ipns` service.
 *
 * @since 0.1.0
 */

import { Argument, Command } from "effect/cli"
import * as Effect from "effect/Effect"
import { Ipns } from "lighthouse-effect"
import * as Credentials from "../Credentials.ts"
import * as Output from "../Output.ts"

const keyName = Argument.String("key").pipe(Argument.withDescription("The key's name (ipnsName from `keys list`)"))

const generate = Command.make("generate", {}, () =>
  Effect.gen(function* () {
    const apiKey = yield* Credentials.apiKey
    const key = yield* Ipns.Ipns.use((ipns) => ipns.generateKey(apiKey))
    yield* Output.result(key, [`${key.ipnsName}  ${key.ipnsId}`])
  })
).pipe(Command.withDescription("Creates an IPNS key"))

const publish = Command.make(
  "publish",
  { key: keyName, cid: Argument.String("cid").pipe(Argument.withDescription("What the name points at")) },
  ({ key, cid }) =>
    Effect.gen(function* () {
      const apiKey = yield* Credentials.apiKey
      const record = yield* Ipns.Ipns.use((ipns) => ipns.publishRecord(apiKey, { cid, keyName: key }))
      yield* Output.result(record, [`${record.Name} -> ${record.Value}`])
    })
).pipe(Command.withDescription("Points a key's name at a CID"))

const list = Command.make("list", {}, () =>
  Effect.gen(function* () {
    const apiKey = yield* Credentials.apiKey
    const records = yield* Ipns.Ipns.use((ipns) => ipns.records(apiKey))
    yield* Output.result(
      records,
      records.map((r) => `${r.ipnsName}  ${r.ipnsId}  ${r.cid ?? "-"}`)
    )
  })
).pipe(Command.withDescription("Every key with what it points at"))

const remove = Command.make("remove", { key: keyName }, ({ key }) =>
  Effect.gen(function* () {
    const apiKey = yield* Credentials.apiKey
    const removed = yield* Ipns.Ipns.use((ipns) => ipns.removeKey(apiKey, key))
    yield* Output.result(removed, [`removed ${key}`])
  })
).pipe(Command.withDescription("Removes a key"))

export const keys = Command.make("keys").pipe(
  Command.withAlias("ipns"),
  Command.withDescription("IPNS keys: generate, publish, list, remove"),
  Command.withSubcommands([generate, publish, list, remove])
)
