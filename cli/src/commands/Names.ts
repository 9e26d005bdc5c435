/**
 * IPNS keys of the account (`keys generate`, `publish`, `list`, `remove`; the provider's `ipns`
 * is an alias), and who may open an encrypted file (`share`, `revoke`, with the provider's
 * `share-file` and `revoke-access`; `transfer` of its ownership; `delegate` and `undelegate` of
 * every file of the wallet). Each is one call of the library's `Ipns` or `AccessControl` service.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import { Argument, Command, Flag } from "effect/cli"
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

export const transfer = Command.make(
  "transfer",
  {
    cid: Argument.String("cid").pipe(Argument.withDescription("The encrypted file's CID")),
    address: Argument.String("address").pipe(Argument.withDescription("The new owner's EVM address")),
    keepShared: Flag.Boolean("keep-shared").pipe(
      Flag.withDescription("Keep the addresses the file is shared with (default: the list is cleared)"),
      Flag.withDefault(false)
    ),
    passwordFile: Credentials.passwordFile
  },
  ({ cid, address, keepShared, passwordFile }) =>
    Effect.gen(function* () {
      const result = yield* asOwner(passwordFile, (owner) =>
        AccessControl.AccessControl.use((access) =>
          access.transferOwnership({ ...owner, cid, newOwner: address, resetSharedTo: !keepShared })
        )
      )
      yield* Output.result({ cid, newOwner: address, nodes: result }, [`${address} now owns ${cid}`])
    }).pipe(withLibrary)
).pipe(Command.withDescription("Makes another address the owner of an encrypted file"))

export const delegate = Command.make(
  "delegate",
  {
    addresses: Argument.String("address").pipe(
      Argument.withDescription("EVM addresses that may recover the key of every file of the wallet"),
      Argument.atLeast(1)
    ),
    passwordFile: Credentials.passwordFile
  },
  ({ addresses, passwordFile }) =>
    Effect.gen(function* () {
      const result = yield* asOwner(passwordFile, (owner) =>
        AccessControl.AccessControl.use((access) => access.delegateAllFiles({ ...owner, delegates: addresses }))
      )
      yield* Output.result({ delegates: addresses, nodes: result }, [
        `${addresses.join(", ")} may now open every file of the wallet (the previous delegates replaced)`
      ])
    }).pipe(withLibrary)
).pipe(Command.withDescription("Lets addresses open every encrypted file of the wallet; replaces the delegates"))

export const undelegate = Command.make("undelegate", { passwordFile: Credentials.passwordFile }, ({ passwordFile }) =>
  Effect.gen(function* () {
    const result = yield* asOwner(passwordFile, (owner) =>
      AccessControl.AccessControl.use((access) => access.revokeDelegates(owner))
    )
    yield* Output.result({ delegates: [], nodes: result }, ["the wallet has no delegates now"])
  }).pipe(withLibrary)
).pipe(Command.withDescription("Revokes every delegate of the wallet"))
