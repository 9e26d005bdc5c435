/**
 * x402 pay-per-upload errors: the payment the network asked for was not made. In every case
 * nothing was stored and nothing settled.
 *
 * @since 0.3.0
 */
import * as Schema from "effect/Schema"

/** The authorisation paid less than the network asked for (`amount` < `required`, base units). */
export class X402Underpaid extends Schema.TaggedError<X402Underpaid>()("X402Underpaid", {
  amount: Schema.String,
  required: Schema.String
}) {
  override get message() {
    return `x402 payment of ${this.amount} is below the ${this.required} required`
  }
}

/** The network asks to be paid in another token than the caller offered; nothing was signed. */
export class X402WrongAsset extends Schema.TaggedError<X402WrongAsset>()("X402WrongAsset", {
  asked: Schema.String,
  offered: Schema.String
}) {
  override get message() {
    return `x402 payment asked in ${this.asked}, offered ${this.offered}`
  }
}

/** The authorisation's validity window is over (or not open yet) by the chain's clock. */
export class X402AuthorizationExpired extends Schema.TaggedError<X402AuthorizationExpired>()(
  "X402AuthorizationExpired",
  { validBefore: Schema.String }
) {
  override get message() {
    return `x402 authorisation expired (valid before ${this.validBefore})`
  }
}

/** The authorisation's nonce was already used: the payment was made before and is not made twice. */
export class X402AuthorizationReplayed extends Schema.TaggedError<X402AuthorizationReplayed>()(
  "X402AuthorizationReplayed",
  { nonce: Schema.String }
) {
  override get message() {
    return `x402 authorisation ${this.nonce} was already used`
  }
}

/** The payer does not hold the amount of the asset. */
export class X402InsufficientFunds extends Schema.TaggedError<X402InsufficientFunds>()("X402InsufficientFunds", {
  payer: Schema.String,
  required: Schema.String
}) {
  override get message() {
    return `x402 payer ${this.payer} holds less than ${this.required}`
  }
}

/** Any other refusal of the payment, with the network's x402 reason (`invalid_network`, …). */
export class X402PaymentRefused extends Schema.TaggedError<X402PaymentRefused>()("X402PaymentRefused", {
  reason: Schema.String
}) {
  override get message() {
    return `x402 payment refused: ${this.reason}`
  }
}
