/**
 * Payment errors. Prices, quotes and payments: networks, tokens, inputs, contract reverts and chain failures.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** The ticker call failed; `detail` says why. */
export class TickerPriceFailed extends Schema.TaggedError<TickerPriceFailed>()("TickerPriceFailed", {
  detail: Schema.String
}) {
  override get message() {
    return `Failed to get ticker price: ${this.detail}`
  }
}

/** A network name that is not in the network table. */
export class UnsupportedNetwork extends Schema.TaggedError<UnsupportedNetwork>()("UnsupportedNetwork", {
  network: Schema.String
}) {
  override get message() {
    return "Unsupported Network!!!"
  }
}

/** A price or quote was asked for without a network. */
export class TokenNotProvided extends Schema.TaggedError<TokenNotProvided>()("TokenNotProvided", {}) {
  override get message() {
    return "Token not provided!!!"
  }
}

/** Funding was asked for without a private key or signer. */
export class PrivateKeyNotFound extends Schema.TaggedError<PrivateKeyNotFound>()("PrivateKeyNotFound", {}) {
  override get message() {
    return "Private Key not found!!!"
  }
}

/** The custom errors of the provider's deployed payment contract, and Ownable's. */
export const ContractErrorName = Schema.Literals([
  "ENDOWMENT_TRANSFER_FAILED",
  "INSUFFICIENT_CONTRACT_BALANCE",
  "INSUFFICIENT_USER_BALANCE",
  "INVALID_ZERO_ADDRESS",
  "TOKEN_APPROVAL_FAILED",
  "TOKEN_NOT_SUPPORTED",
  "TOKEN_PAYMENT_FAILED",
  "OwnableUnauthorizedAccount",
  "OwnableInvalidOwner"
])
export type ContractErrorName = typeof ContractErrorName.Type

/** The payment contract reverted with one of its custom errors. */
export class ContractReverted extends Schema.TaggedError<ContractReverted>()("ContractReverted", {
  errorName: ContractErrorName,
  args: Schema.Array(Schema.Unknown)
}) {
  override get message() {
    return this.errorName
  }
}

/** Any other chain failure (RPC down, gas estimation, insufficient funds for gas). */
export class ChainError extends Schema.TaggedError<ChainError>()("ChainError", {
  shortMessage: Schema.String,
  cause: Schema.Defect()
}) {
  override get message() {
    return this.shortMessage
  }
}

/** A price, quote or payment in a token the network does not list (or no token of that name at all). */
export class UnsupportedToken extends Schema.TaggedError<UnsupportedToken>()("UnsupportedToken", {
  network: Schema.String,
  token: Schema.String
}) {
  override get message() {
    return `Unsupported Token: ${this.token} on ${this.network}`
  }
}

/** A size or amount a payment cannot be made of: negative, fractional, or an amount of zero. */
export class InvalidPaymentInput extends Schema.TaggedError<InvalidPaymentInput>()("InvalidPaymentInput", {
  detail: Schema.String
}) {
  override get message() {
    return `Invalid payment input: ${this.detail}`
  }
}

/**
 * A contract reverted with a custom error outside `ContractErrorName`: one of the payment contract's
 * additive errors (`INVALID_AMOUNT`, `FUNCTION_NOT_FOUND`, `RENOUNCE_DISABLED`, the reentrancy guard's)
 * or a token's own (OpenZeppelin's `ERC20InsufficientBalance`…).
 */
export class OtherContractError extends Schema.TaggedError<OtherContractError>()("OtherContractError", {
  errorName: Schema.String,
  args: Schema.Array(Schema.Unknown)
}) {
  override get message() {
    return this.errorName
  }
}
