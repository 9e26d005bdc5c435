/**
 * Who may open an encrypted file, each command one call of the library's `AccessControl`
 * service: `share` and `revoke` (the provider's `share-file` and `revoke-access`), `transfer` of
 * its ownership, `delegate` and `undelegate` of every file of the wallet, and `conditions
 * apply|update|show <cid>`: the access conditions of the file on the 5 key nodes. `apply` and
 * `update` send the conditions of a JSON file (`-`: stdin), an array of EVM, Solana, Coreum or
 * Radix conditions, with `--aggregator` and `--chain-type`, signed in with the wallet; the library
 * validates them before anything is sent. `show` prints what the nodes hold.
 *
 * @since 0.1.0
 */

import { Argument, Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AccessCondition, AccessControl, type Auth } from "lighthouse-effect"
import * as Credentials from "../Credentials.ts"
import { UsageError } from "../Errors.ts"
import * as Output from "../Output.ts"

const cid = Argument.String("cid").pipe(Argument.withDescription("The encrypted file's CID"))

const accessFlags = {
  cid,
  address: Argument.String("address").pipe(Argument.withDescription("The EVM address to grant or revoke"))
}

/** Runs `change` with the wallet as the owner (`Auth.Owner`): the library signs in with it. */
const asOwner = <A, E, R>(change: (owner: Auth.SignerOwner) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Credentials.signer, (signer) => change({ signer }))

export const share = Command.make("share", accessFlags, ({ cid, address }) =>
  Effect.gen(function* () {
    const result = yield* asOwner((owner) =>
      AccessControl.AccessControl.use((access) => access.share({ ...owner, cid, shareTo: [address] }))
    )
    yield* Output.result({ cid, sharedWith: address, nodes: result }, [`${address} may now open ${cid}`])
  })
).pipe(Command.withAlias("share-file"), Command.withDescription("Lets an address recover an encrypted file's key"))

export const revoke = Command.make("revoke", accessFlags, ({ cid, address }) =>
  Effect.gen(function* () {
    const result = yield* asOwner((owner) =>
      AccessControl.AccessControl.use((access) => access.revoke({ ...owner, cid, revokeTo: [address] }))
    )
    yield* Output.result({ cid, revoked: address, nodes: result }, [`${address} may no longer open ${cid}`])
  })
).pipe(Command.withAlias("revoke-access"), Command.withDescription("Takes back an address's access to a file"))

export const transfer = Command.make(
  "transfer",
  {
    cid,
    address: Argument.String("address").pipe(Argument.withDescription("The new owner's EVM address")),
    keepShared: Flag.Boolean("keep-shared").pipe(
      Flag.withDescription("Keep the addresses the file is shared with (default: the list is cleared)"),
      Flag.withDefault(false)
    )
  },
  ({ cid, address, keepShared }) =>
    Effect.gen(function* () {
      const result = yield* asOwner((owner) =>
        AccessControl.AccessControl.use((access) =>
          access.transferOwnership({ ...owner, cid, newOwner: address, resetSharedTo: !keepShared })
        )
      )
      yield* Output.result({ cid, newOwner: address, nodes: result }, [`${address} now owns ${cid}`])
    })
).pipe(Command.withDescription("Makes another address the owner of an encrypted file"))

export const delegate = Command.make(
  "delegate",
  {
    addresses: Argument.String("address").pipe(
      Argument.withDescription("EVM addresses that may recover the key of every file of the wallet"),
      Argument.atLeast(1)
    )
  },
  ({ addresses }) =>
    Effect.gen(function* () {
      const result = yield* asOwner((owner) =>
        AccessControl.AccessControl.use((access) => access.delegateAllFiles({ ...owner, delegates: addresses }))
      )
      yield* Output.result({ delegates: addresses, nodes: result }, [
        `${addresses.join(", ")} may now open every file of the wallet (the previous delegates replaced)`
      ])
    })
).pipe(Command.withDescription("Lets addresses open every encrypted file of the wallet; replaces the delegates"))

export const undelegate = Command.make("undelegate", {}, () =>
  Effect.gen(function* () {
    const result = yield* asOwner((owner) => AccessControl.AccessControl.use((access) => access.revokeDelegates(owner)))
    yield* Output.result({ delegates: [], nodes: result }, ["the wallet has no delegates now"])
  })
).pipe(Command.withDescription("Revokes every delegate of the wallet"))

// =============================================================================
// conditions
// =============================================================================

const changeFlags = {
  cid,
  conditions: Flag.String("conditions").pipe(
    Flag.withAlias("c"),
    Flag.withDescription("A JSON file with the array of conditions (- for stdin)")
  ),
  aggregator: Flag.String("aggregator").pipe(
    Flag.withDescription("How the conditions combine, e.g. '([1] and [2]) or [3]' (needed with more than one)"),
    Flag.optional
  ),
  chainType: Flag.Literals(
    "chain-type",
    AccessCondition.ChainType.literals.map((chain) => chain.toLowerCase() as Lowercase<typeof chain>)
  ).pipe(Flag.withDescription("The chain the conditions are checked on (default evm)"), Flag.optional)
}

type ChangeFlags = Command.Command.Config.Infer<typeof changeFlags>

/** The library's own schema of a conditions list: an array of objects. */
const ConditionsJson = Schema.fromJsonString(AccessControl.UpdateInput.fields.conditions)

/** The conditions file, parsed; what is not a JSON array of objects is a usage error naming the file. */
const readConditions = (file: string) =>
  Effect.gen(function* () {
    const text = yield* Credentials.fromFile(file)
    return yield* Schema.decodeUnknownEffect(ConditionsJson)(text).pipe(
      Effect.mapError(
        (error) =>
          new UsageError({
            detail: `${file === "-" ? "stdin" : file}: not a JSON array of conditions (${error.message})`
          })
      )
    )
  })

/** Sends the conditions with `send` (`apply` or `update`), the wallet as the owner. */
const change = (flags: ChangeFlags, send: "apply" | "update") =>
  Effect.gen(function* () {
    const conditions = yield* readConditions(flags.conditions)
    const input = {
      signer: yield* Credentials.signer,
      cid: flags.cid,
      conditions,
      aggregator: Option.getOrUndefined(flags.aggregator),
      chainType: Option.getOrUndefined(flags.chainType)
    }
    const nodes = yield* AccessControl.AccessControl.use((access) => access[send](input))
    yield* Output.result({ cid: flags.cid, conditions: conditions.length, nodes }, [
      `${conditions.length} condition${conditions.length === 1 ? "" : "s"} on ${flags.cid}, held by all 5 key nodes`
    ])
  })

const apply = Command.make("apply", changeFlags, (flags) => change(flags, "apply")).pipe(
  Command.withDescription("Sets the access conditions of a file whose key the nodes hold"),
  Command.withExamples([
    {
      command: "lighthouse-effect conditions apply bafy… -c rules.json --aggregator '([1] or [2])'",
      description: "Conditions from a file"
    },
    {
      command: "echo '[{…}]' | lighthouse-effect conditions apply bafy… -c - --chain-type solana",
      description: "From stdin"
    }
  ])
)

const update = Command.make("update", changeFlags, (flags) => change(flags, "update")).pipe(
  Command.withDescription("Replaces the access conditions of a file")
)

const show = Command.make("show", { cid }, ({ cid }) =>
  Effect.gen(function* () {
    const held = yield* AccessControl.AccessControl.use((access) => access.get(cid))
    yield* Output.result(held, [
      `owner       ${held.owner}`,
      `shared to   ${held.sharedTo.length === 0 ? "-" : held.sharedTo.join(", ")}`,
      `aggregator  ${held.aggregator === "" ? "-" : held.aggregator}`,
      `chain type  ${held.chainType ?? "-"}`,
      `conditions  ${JSON.stringify([...held.conditions, ...held.conditionsSolana])}`
    ])
  })
).pipe(Command.withDescription("What the key nodes hold for a file: owner, sharing list, conditions"))

export const conditions = Command.make("conditions").pipe(
  Command.withDescription("Access conditions of an encrypted file: apply, update, show"),
  Command.withSubcommands([apply, update, show])
)
