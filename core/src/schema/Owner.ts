/**
 * Who owns encrypted files, as every key-node input takes it: a signer, which the call signs in
 * with (`Auth.token`, a cached JWT that is renewed when a node refuses it), or an address and a
 * key-node token the caller obtained. The two are kept flat, beside the input's other fields, so
 * `{ address, token, … }` and `{ signer, … }` are both what they look like.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { ServiceSchema as SignerSchema } from "../signer/Service.ts"
import { Credential } from "./Credential.ts"

/** The signer form: the signer's address owns the files. */
const signerFields = {
  /** Signs in to the key nodes (`Auth.token`, a cached JWT); its address owns the files. */
  signer: SignerSchema,
  address: Schema.optional(Schema.Undefined),
  token: Schema.optional(Schema.Undefined)
}

/** The address form: the pair the key nodes take. */
const addressFields = {
  /** The owner: an EVM address (any case) or a 44-character base58 key. */
  address: Schema.String,
  /**
   * The key nodes' bearer token: a JWT (`jwt:…`), or a signed auth message (single-use, so one
   * request only).
   */
  token: Credential,
  signer: Schema.optional(Schema.Undefined)
}

/**
 * An owner given by its signer.
 *
 * @category schemas
 */
export const SignerOwner = Schema.Struct(signerFields)
/** @category models */
export type SignerOwner = typeof SignerOwner.Type

/**
 * An owner given by its address and a key-node token: what the key nodes take on the wire.
 *
 * @category schemas
 */
export const AddressOwner = Schema.Struct(addressFields)
/** @category models */
export type AddressOwner = typeof AddressOwner.Type

/**
 * Who owns the files: `{ signer }` or `{ address, token }`, never both.
 *
 * @category schemas
 */
export const Owner = Schema.Union([SignerOwner, AddressOwner])
/** @category models */
export type Owner = typeof Owner.Type

/**
 * An input of `fields` and its owner, in either form: `{ ...fields, signer }` or
 * `{ ...fields, address, token }`. Like a `Struct`, it keeps `fields` (the input's own, the
 * owner's aside), for whoever builds on one of them.
 *
 * @category constructors
 */
export const owned = <const Fields extends Schema.Struct.Fields>(fields: Fields) =>
  Object.assign(
    Schema.Union([Schema.Struct({ ...fields, ...signerFields }), Schema.Struct({ ...fields, ...addressFields })]),
    { fields }
  )
