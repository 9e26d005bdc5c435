/**
 * x402 pay-per-upload errors: the payment the network asked for was not made. In every case
 * nothing was stored and nothing settled.
 *
 * @since 0.1.0
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

/** The network asks more than the caller allows (`asked` > `maxAmount`, base units); nothing was signed. */
export class X402PriceAboveMaximum extends Schema.TaggedError<X402PriceAboveMaximum>()("X402PriceAboveMaximum", {
  asked: Schema.String,
  maxAmount: Schema.String
}) {
  override get message() {
    return `x402 payment of ${this.asked} asked, above the ${this.maxAmount} allowed (raise maxAmount to pay it)`
  }
}

/** The network asks to be paid on another chain than the caller expects; nothing was signed. */
export class X402WrongNetwork extends Schema.TaggedError<X402WrongNetwork>()("X402WrongNetwork", {
  asked: Schema.String,
  expected: Schema.String
}) {
  override get message() {
    return `x402 payment asked on ${this.asked}, expected ${this.expected}`
  }
}

/** The authorisation would stay valid longer than the caller allows; nothing was signed. */
export class X402WindowTooLong extends Schema.TaggedError<X402WindowTooLong>()("X402WindowTooLong", {
  asked: Schema.String,
  maxTimeoutSeconds: Schema.String
}) {
  override get message() {
    return `x402 authorisation valid for ${this.asked} s asked, above the ${this.maxTimeoutSeconds} s allowed`
  }
}

/** A term of the network's `402` is not what x402 allows (`field`, its value, why); nothing was signed. */
export class X402MalformedTerms extends Schema.TaggedError<X402MalformedTerms>()("X402MalformedTerms", {
  field: Schema.String,
  value: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `x402 terms refused: ${this.field} ${this.value} ${this.reason}`
  }
}
