/**
 * What storage costs and paying for it: `quote <path|size>…` prices files on disk (folders
 * walked) and sizes in bytes as one upload, with each file's size and type; `pay <amount>` pays
 * the network's payment contract in a stablecoin or its native coin and waits for the receipt;
 * `x402-upload <file>` uploads one file paid for in the request itself (x402: the network asks a
 * price, the wallet signs an EIP-3009 USDC authorisation, the network settles it and stores the
 * file; no API key). Each is a call of the library's `Payment` service (`quotePaths`, `quote`,
 * `fund`, `x402Upload`).
 *
 * The payer's private key never comes from argv: it is `LIGHTHOUSE_PRIVATE_KEY` or the stored
 * wallet opened with its password. `--networks FILE` adds rows to the library's network table,
 * e.g. `localhost` pointing at the deployment of a local chain.
 *
 * @since 0.1.0
 */

import { Argument, Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as SchemaTransformation from "effect/SchemaTransformation"
import { Address, Mime, Networks, Payment } from "lighthouse-effect"
import { formatUnits, getAddress, isAddress } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import * as Client from "../Client.ts"
import * as Credentials from "../Credentials.ts"
import { UsageError } from "../Errors.ts"
import * as Output from "../Output.ts"

const targetFlags = {
  network: Flag.String("network").pipe(
    Flag.withDescription("polygon, filecoin, optimism, … or localhost (default: LIGHTHOUSE_NETWORK, else polygon)"),
    Flag.optional
  ),
  token: Flag.Literals("token", ["native", "usdc", "usdt", "dai"]).pipe(
    Flag.withDescription("The network's native coin or one of its stablecoins"),
    Flag.withDefault("native" as const)
  ),
  networks: Flag.String("networks").pipe(
    Flag.withDescription('A JSON file of network table rows to add, e.g. {"localhost": {…the local deployment…}}'),
    Flag.optional
  )
}

const NetworksJson = Schema.fromJsonString(Networks.NetworkTable)

/** The extra rows of the network table; what does not decode is a usage error naming the file. */
const extraNetworks = (file: Option.Option<string>) =>
  Effect.gen(function* () {
    if (Option.isNone(file)) return {}
    const text = yield* Credentials.fromFile(file.value)
    return yield* Schema.decodeUnknownEffect(NetworksJson)(text).pipe(
      Effect.mapError((error) => new UsageError({ detail: `${file.value}: not a network table (${error.message})` }))
    )
  })

/** The library's services over the table with `--networks`' rows (in place of the root's). */
const withNetworks = <const Name extends string, Input extends { readonly networks: Option.Option<string> }, C, E, R>(
  command: Command.Command<Name, Input, C, E, R>
) => Command.provide(command, (flags) => Layer.unwrap(Effect.map(extraNetworks(flags.networks), Client.layerWith)))

const target = (network: Option.Option<string>, token: string) =>
  Option.match(network, { onNone: () => ({ token }), onSome: (network) => ({ network, token }) })

/** A whole number of bytes or of a token's smallest unit. */
const wholeNumber = /^\d+$/

/** A whole number of a token's smallest unit (an asset's base units), as a flag or argument takes it. */
const Units = Schema.String.check(
  Schema.isPattern(wholeNumber, { message: "a whole number of the token's smallest unit (digits only)" })
).pipe(Schema.decodeTo(Schema.BigInt, SchemaTransformation.bigintFromString))

const priceLine = (price: Payment.Price) =>
  `${price.formatted} ${price.token} on ${price.network} (${price.amount} in the smallest unit, ${price.usd} USD)`

export const quote = Command.make(
  "quote",
  {
    inputs: Argument.String("path|size").pipe(
      Argument.withDescription("A file or folder, or a size in bytes (digits only; ./123 is a file named 123)"),
      Argument.atLeast(1)
    ),
    ...targetFlags
  },
  ({ inputs, network, token }) =>
    Effect.gen(function* () {
      const payment = yield* Payment.Payment
      const sizes = inputs.filter((input) => wholeNumber.test(input)).map(Number)
      const paths = inputs.filter((input) => !wholeNumber.test(input))
      const onDisk =
        paths.length === 0 ? [] : (yield* payment.quotePaths({ paths, ...target(network, token) })).metaData
      const quoted = yield* payment.quote({ files: [...onDisk, ...sizes], ...target(network, token) })
      yield* Output.result(quoted, [
        ...quoted.metaData.map((file) => `${file.fileSize}  ${file.mimeType ?? "-"}  ${file.fileName || "-"}`),
        `total ${quoted.totalSize} bytes: ${priceLine(quoted.price)}`
      ])
    })
).pipe(
  withNetworks,
  Command.withDescription("The price of storing files, folders or sizes as one upload"),
  Command.withExamples([
    { command: "lighthouse-effect quote photos/ --token usdc --json", description: "A folder's price in USDC" },
    { command: "lighthouse-effect quote 1073741824 --network filecoin", description: "1 GiB in FIL" }
  ])
)

export const pay = Command.make(
  "pay",
  {
    amount: Argument.String("amount").pipe(
      Argument.withSchema(Units),
      Argument.withDescription("In the token's smallest unit (the `amount` of a quote's price)")
    ),
    ...targetFlags
  },
  ({ amount, network, token }) =>
    Effect.gen(function* () {
      const privateKey = yield* Credentials.privateKey
      const paid = yield* Payment.Payment.use((payment) =>
        payment.fund({ amount, privateKey, ...target(network, token) })
      )
      const summary = {
        hash: paid.hash,
        explorerUrl: paid.explorerUrl ?? null,
        approval: paid.approval?.hash ?? null,
        payment: paid.payment ?? null
      }
      yield* Output.result(summary, [
        `paid ${amount} (${token}) in ${paid.hash}`,
        ...(paid.explorerUrl === undefined ? [] : [paid.explorerUrl])
      ])
    })
).pipe(
  withNetworks,
  Command.withDescription(
    "Pays the network's payment contract; the private key from the wallet or LIGHTHOUSE_PRIVATE_KEY"
  ),
  Command.withExamples([
    {
      command:
        "lighthouse-effect pay $(lighthouse-effect quote big.iso --token usdc --json | jq -r .price.amount) --token usdc",
      description: "Pay a quote in USDC (approve, then receiveToken)"
    }
  ])
)

// =============================================================================
// x402-upload
// =============================================================================

/** A token's address as the user writes it (any case); the handler checksums it. */
const TokenAddress = Schema.String.check(
  Schema.makeFilter((text: string) => isAddress(text, { strict: false }), {
    message: "a token address (0x and 40 hex digits)"
  })
)

/** Whole seconds above 0 (an authorisation's validity). */
const Seconds = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 999_999_999 }))

/** The file on disk as a `File` named by `--name` or its own base name. */
const fileOf = (path: string, name: Option.Option<string>) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const paths = yield* Path.Path
    // A copy onto an `ArrayBuffer` of its own: a `Blob` takes no view of a possibly shared buffer.
    const bytes = new Uint8Array(yield* fs.readFile(path))
    const fileName = Option.getOrElse(name, () => paths.basename(path))
    return new File([bytes], fileName, { type: Mime.lookup(fileName) ?? "" })
  })

/** What a person reads of a quote: what would be signed, and that nothing was. */
const quoteLines = (quote: Payment.X402Quote) => [
  `price   ${formatUnits(quote.amount, 6)} ${quote.token.name} (${quote.amount} base units of ${quote.asset})`,
  `payee   ${quote.payTo}`,
  `chain   ${quote.network} (chain id ${quote.chainId}), x402 version ${quote.x402Version}`,
  `window  ${quote.maxTimeoutSeconds} s`,
  `for     ${quote.description}`,
  "nothing signed (--dry-run)"
]

/** What a person reads of a paid upload (USDC has 6 decimals). */
const x402Lines = (result: Payment.X402UploadResult) => [
  `stored ${result.entry.Name} ${result.entry.Hash} (${result.entry.Size} bytes)`,
  `paid ${formatUnits(result.paid.amount, 6)} (${result.paid.amount} base units of ${result.paid.asset}) ` +
    `in ${result.settlement.transaction} on ${result.settlement.network}`,
  // The provider's walrus-main answers a record id and a paid-through time: what x402-renew takes.
  ...(result.stored?.id === undefined || result.stored.expiresAt === undefined
    ? []
    : [
        `record ${result.stored.id}, paid until ${new Date(result.stored.expiresAt).toISOString()} (x402-renew ${result.stored.id})`
      ])
]

const maxAmountDefault = Payment.x402DefaultMaxAmount
const x402Flags = {
  file: Argument.String("file").pipe(Argument.withDescription("The file to store")),
  name: Flag.String("name").pipe(Flag.withDescription("Store it under this name (default: its own)"), Flag.optional),
  network: Flag.String("network").pipe(
    Flag.withDescription(
      `The x402 network to pay on: ${Object.keys(Payment.x402Networks).join(", ")} or eip155:<chain id> (default ${Payment.x402DefaultNetwork}); another is refused`
    ),
    Flag.optional
  ),
  asset: Flag.String("asset").pipe(
    Flag.withSchema(TokenAddress),
    Flag.withDescription("The token you pay with (default: the network's USDC); another is refused, nothing signed"),
    Flag.optional
  ),
  maxAmount: Flag.String("max-amount").pipe(
    Flag.withSchema(Units),
    Flag.withDescription(
      `The most you pay, in the asset's base units (default ${maxAmountDefault} = ${formatUnits(maxAmountDefault, 6)} USDC); a higher price is refused, nothing signed`
    ),
    Flag.withDefault(maxAmountDefault)
  ),
  maxTimeout: Flag.Int("max-timeout").pipe(
    Flag.withSchema(Seconds),
    Flag.withDescription(
      `The longest the authorisation may stay valid, in seconds (default ${Payment.x402DefaultMaxTimeoutSeconds})`
    ),
    Flag.withDefault(Payment.x402DefaultMaxTimeoutSeconds)
  ),
  amount: Flag.String("amount").pipe(
    Flag.withSchema(Units),
    Flag.withDescription("Pay this many base units instead of the price asked (a price agreed beforehand)"),
    Flag.optional
  ),
  routes: Flag.Literals("routes", ["documented", "current"]).pipe(
    Flag.withDescription(
      `The provider's x402 routes: documented (POST /api/x402/upload, x402 v1) or current (POST /api/upload, x402 v2); the version spoken is the 402's (default: LIGHTHOUSE_X402_ROUTES, else ${Payment.defaultX402Routes})`
    ),
    Flag.optional
  ),
  dryRun: Flag.Boolean("dry-run").pipe(
    Flag.withDescription("Ask the price and show price, payee, chain and token; sign nothing, store nothing"),
    Flag.withDefault(false)
  )
}

/** The signing account: `LIGHTHOUSE_PRIVATE_KEY` or the wallet opened with its password. */
const account = Effect.gen(function* () {
  const key = yield* Address.parsePrivateKey(yield* Credentials.privateKey)
  return privateKeyToAccount(Redacted.value(key))
})

export const x402Upload = Command.make(
  "x402-upload",
  x402Flags,
  ({ file, name, network, asset, maxAmount, maxTimeout, amount, routes, dryRun }) =>
    Effect.gen(function* () {
      const limits = {
        routes: Option.getOrUndefined(routes),
        network: Option.getOrUndefined(network),
        asset: Option.getOrUndefined(Option.map(asset, getAddress)),
        maxAmount,
        maxTimeoutSeconds: maxTimeout
      }
      const payment = yield* Payment.Payment
      if (dryRun) {
        const quoted = yield* payment.x402Quote({ file: yield* fileOf(file, name), ...limits })
        return yield* Output.result(quoted, quoteLines(quoted))
      }
      const upload = yield* fileOf(file, name)
      const paying = { account: yield* account, amount: Option.getOrUndefined(amount) }
      const result = yield* payment.x402Upload({ file: upload, ...paying, ...limits })
      yield* Output.result(result, x402Lines(result))
    })
).pipe(
  Command.withDescription(
    `Uploads a file paid per upload over x402 (USDC, EIP-3009), no API key; pays at most --max-amount (default ${formatUnits(maxAmountDefault, 6)} USDC) on --network (default ${Payment.x402DefaultNetwork}); the key from the wallet or LIGHTHOUSE_PRIVATE_KEY`
  ),
  Command.withExamples([
    {
      command: "lighthouse-effect x402-upload report.pdf --dry-run",
      description: "The price, payee, chain and token asked; nothing signed"
    },
    {
      command: "lighthouse-effect x402-upload report.pdf",
      description: `Pay the price asked in Base USDC, at most ${formatUnits(maxAmountDefault, 6)} USDC, and store the file`
    },
    {
      command: "lighthouse-effect x402-upload big.iso --max-amount 2000000 --network base-sepolia --json",
      description: "Pay up to 2 USDC on Base Sepolia; the settlement as JSON"
    },
    {
      command: "lighthouse-effect x402-upload report.pdf --routes current --network base-sepolia",
      description: "Through the provider's current x402 server (POST /api/upload, x402 version 2)"
    }
  ])
)

/** What a person reads of a renewal's terms (`--dry-run`): the price route's answer. */
const renewQuoteLines = (quote: Payment.X402RenewQuote) => [
  `renew   ${quote.fileName} ${quote.cid} (id ${quote.id}, ${quote.fileSizeBytes} bytes)`,
  `price   ${quote.totalPrice} for ${quote.storagePeriodDays} days: ${quote.billableMiB} MiB encoded (${quote.encodedSizeBytes} bytes) at ${quote.pricePerMB} per MiB plus ${quote.facilitatorFee}`,
  `expires ${quote.currentExpiresAt === null ? "not paid yet" : new Date(quote.currentExpiresAt).toISOString()}`,
  `pay to  ${quote.payTo} on ${quote.network}`,
  "nothing signed (--dry-run)"
]

/** What a person reads of a renewal. */
const renewLines = (result: Payment.X402RenewResult) => [
  `renewed ${result.renewal.id} until ${new Date(result.renewal.expiresAt).toISOString()} (was ${new Date(result.renewal.previousExpiresAt).toISOString()})`,
  `paid ${formatUnits(result.paid.amount, 6)} (${result.paid.amount} base units of ${result.paid.asset}) ` +
    `in ${result.settlement.transaction} on ${result.settlement.network}`
]

const { file: _file, name: _name, routes: _routes, ...x402LimitFlags } = x402Flags

export const x402Renew = Command.make(
  "x402-renew",
  {
    id: Argument.String("id").pipe(Argument.withDescription("The upload's record id (its x402-upload answer's id)")),
    ...x402LimitFlags,
    dryRun: Flag.Boolean("dry-run").pipe(
      Flag.withDescription("Show the renewal's price, size and current expiry; sign nothing"),
      Flag.withDefault(false)
    )
  },
  ({ id, network, asset, maxAmount, maxTimeout, amount, dryRun }) =>
    Effect.gen(function* () {
      const payment = yield* Payment.Payment
      if (dryRun) {
        const quoted = yield* payment.x402RenewPrice({ id })
        return yield* Output.result(quoted, renewQuoteLines(quoted))
      }
      const result = yield* payment.x402Renew({
        id,
        account: yield* account,
        amount: Option.getOrUndefined(amount),
        network: Option.getOrUndefined(network),
        asset: Option.getOrUndefined(Option.map(asset, getAddress)),
        maxAmount,
        maxTimeoutSeconds: maxTimeout
      })
      yield* Output.result(result, renewLines(result))
    })
).pipe(
  Command.withDescription(
    "Pays for a year more of Walrus storage of a file uploaded with x402-upload --routes current (the provider's walrus-main server), signed by the account that uploaded it; the same limits as x402-upload"
  ),
  Command.withExamples([
    {
      command: "lighthouse-effect x402-renew 3f2c9a4e-… --dry-run",
      description: "The renewal's price (by the Walrus-encoded size) and the current expiry; nothing signed"
    },
    {
      command: "lighthouse-effect x402-renew 3f2c9a4e-… --network base-sepolia",
      description: "Pay for a year more in Base Sepolia USDC"
    }
  ])
)
