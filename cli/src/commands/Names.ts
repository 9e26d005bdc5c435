/**
 * IPNS keys of the account (`keys generate`, `publish`, `list`, `remove`; the provider's `ipns`
 * is an alias), and who may open an encrypted file (`share`, `revoke`, with the provider's
 * `share-file` and `revoke-access`). Each is one call of the library's `Ipns` or
 * `AccessControl` service.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import { Argument, Command } from "effect/cli"
import { AccessControl, Auth, Ipns } from "lighthouse-effect"
import { withLibrary } from "../Client.ts"
import * as Credentials from "../Credentials.ts"
import * as Output from "../Output.ts"

const keyName = Argument.String("key").pipe(Argument.withDescription("The key's name (ipnsName from `keys list`)"))
const apiKeyFile = Credentials.apiKeyFile

const generate = Command.make("generate", { apiKeyFile }, ({ apiKeyFile }) =>
  Effect.gen(function* () {
    const apiKey = yield* Credentials.apiKey(apiKeyFile)
    const key = yield* Ipns.Ipns.use((ipns) => ipns.generateKey(apiKey))
    yield* Output.result(key, [`${key.ipnsName}  ${key.ipnsId}`])
  }).pipe(withLibrary)
).pipe(Command.withDescription("Creates an IPNS key"))

const publish = Command.make(
  "publish",
  { apiKeyFile, key: keyName, cid: Argument.String("cid").pipe(Argument.withDescription("What the name points at")) },
  ({ apiKeyFile, key, cid }) =>
    Effect.gen(function* () {
      const apiKey = yield* Credentials.apiKey(apiKeyFile)
      const record = yield* Ipns.Ipns.use((ipns) => ipns.publishRecord(apiKey, { cid, keyName: key }))
      yield* Output.result(record, [`${record.Name} -> ${record.Value}`])
    }).pipe(withLibrary)
).pipe(Command.withDescription("Points a key's name at a CID"))

const list = Command.make("list", { apiKeyFile }, ({ apiKeyFile }) =>
  Effect.gen(function* () {
    const apiKey = yield* Credentials.apiKey(apiKeyFile)
    const records = yield* Ipns.Ipns.use((ipns) => ipns.records(apiKey))
    yield* Output.result(
      records,
      records.map((r) => `${r.ipnsName}  ${r.ipnsId}  ${r.cid ?? "-"}`)
    )
  }).pipe(withLibrary)
).pipe(Command.withDescription("Every key with what it points at"))

const remove = Command.make("remove", { apiKeyFile, key: keyName }, ({ apiKeyFile, key }) =>
  Effect.gen(function* () {
    const apiKey = yield* Credentials.apiKey(apiKeyFile)
    const removed = yield* Ipns.Ipns.use((ipns) => ipns.removeKey(apiKey, key))
    yield* Output.result(removed, [`removed ${key}`])
  }).pipe(withLibrary)
).pipe(Command.withDescription("Removes a key"))

export const keys = Command.make("keys").pipe(
  Command.withAlias("ipns"),
  Command.withDescription("IPNS keys: generate, publish, list, remove"),
  Command.withSubcommands([generate, publish, list, remove])
)

const accessFlags = {
  cid: Argument.String("cid").pipe(Argument.withDescription("The encrypted file's CID")),
  address: Argument.String("address").pipe(Argument.withDescription("The EVM address to grant or revoke")),
  passwordFile: Credentials.passwordFile
}

/** Signs in with the wallet and runs `change` with its address and token. */
const asOwner = <A, E, R>(
  passwordFile: Credentials.PasswordFlag,
  change: (owner: { readonly address: string; readonly token: Redacted.Redacted<string> }) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function* () {
    const signer = yield* Credentials.signer(passwordFile)
    const token = yield* Auth.Auth.use((auth) => auth.token(signer))
    return yield* change({ address: signer.address, token })
  })

export const share = Command.make("share", accessFlags, ({ cid, address, passwordFile }) =>
  Effect.gen(function* () {
    const result = yield* asOwner(passwordFile, (owner) =>
      AccessControl.AccessControl.use((access) => access.share({ ...owner, cid, shareTo: [address] }))
    )
    yield* Output.result({ cid, sharedWith: address, nodes: result }, [`${address} may now open ${cid}`])
  }).pipe(withLibrary)
).pipe(Command.withAlias("share-file"), Command.withDescription("Lets an address recover an encrypted file's key"))

export const revoke = Command.make("revoke", accessFlags, ({ cid, address, passwordFile }) =>
  Effect.gen(function* () {
    const result = yield* asOwner(passwordFile, (owner) =>
      AccessControl.AccessControl.use((access) => access.revoke({ ...owner, cid, revokeTo: [address] }))
    )
    yield* Output.result({ cid, revoked: address, nodes: result }, [`${address} may no longer open ${cid}`])
  }).pipe(withLibrary)
).pipe(Command.withAlias("revoke-access"), Command.withDescription("Takes back an address's access to a file"))
