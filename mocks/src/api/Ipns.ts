/**
 * IPNS keys held by the mock API for its accounts, as the provider does (the server keeps the
 * signing keys; clients name them by `ipnsName`).
 *
 * Each key is a fresh Ed25519 key pair. Its `ipnsId` is the libp2p peer id of the public key in
 * the form gateways use: a CIDv1 with the `libp2p-key` codec (0x72) over the identity multihash of
 * the protobuf-encoded public key, in base36 (`k51…`).
 */
import { ed25519 } from "@noble/curves/ed25519.js"
import { base36 } from "multiformats/bases/base36"
import { CID } from "multiformats/cid"
import { identity } from "multiformats/hashes/identity"
import { Libp2pKeyCodec, type SignedRecord } from "../ipns/IpnsRecords.ts"

export { Libp2pKeyCodec }

export interface IpnsKey {
  /** 32 hex digits (a UUID without dashes). */
  readonly ipnsName: string
  /** `k51…` */
  readonly ipnsId: string
  /** Owner's address, lower-cased. */
  readonly publicKey: string
  /** Last published CID, `null` until the first publish. */
  cid: string | null
  lastUpdate: number
  readonly secretKey: Uint8Array
  /** The signed record last served for this name, `undefined` until first resolved. */
  record: SignedRecord | undefined
}

export class UnknownIpnsKey extends Error {
  constructor(name: string) {
    super(`no IPNS key named ${name}`)
    this.name = "UnknownIpnsKey"
  }
}

/** The libp2p `PublicKey` protobuf of an Ed25519 key: `Type = Ed25519 (1)`, `Data = key`. */
const libp2pPublicKey = (key: Uint8Array) => Uint8Array.of(0x08, 0x01, 0x12, key.byteLength, ...key)

/** The `k51…` name of an Ed25519 public key. */
export const ipnsIdOf = (publicKey: Uint8Array): string =>
  CID.createV1(Libp2pKeyCodec, identity.digest(libp2pPublicKey(publicKey))).toString(base36)

export class IpnsKeys {
  readonly #keys = new Map<string, IpnsKey>()
  readonly #clock: () => number

  constructor(clock: () => number) {
    this.#clock = clock
  }

  generate(owner: string): IpnsKey {
    const secretKey = ed25519.utils.randomPrivateKey()
    const key: IpnsKey = {
      ipnsName: crypto.randomUUID().replaceAll("-", ""),
      ipnsId: ipnsIdOf(ed25519.getPublicKey(secretKey)),
      publicKey: owner,
      cid: null,
      lastUpdate: this.#clock(),
      secretKey,
      record: undefined
    }
    this.#keys.set(key.ipnsName, key)
    return key
  }

  /** A key of this owner by name. */
  get(owner: string, ipnsName: string): IpnsKey | undefined {
    const key = this.#keys.get(ipnsName)
    return key?.publicKey === owner ? key : undefined
  }

  /** The key whose `ipnsId` is given (any owner), for `/ipns/{id}` resolution. */
  byId(ipnsId: string): IpnsKey | undefined {
    for (const key of this.#keys.values()) if (key.ipnsId === ipnsId) return key
    return undefined
  }

  publish(owner: string, ipnsName: string, cid: string): IpnsKey {
    const key = this.get(owner, ipnsName)
    if (key === undefined) throw new UnknownIpnsKey(ipnsName)
    key.cid = cid
    key.lastUpdate = this.#clock()
    return key
  }

  of(owner: string): ReadonlyArray<IpnsKey> {
    return [...this.#keys.values()].filter((key) => key.publicKey === owner)
  }

  remove(owner: string, ipnsName: string): IpnsKey {
    const key = this.get(owner, ipnsName)
    if (key === undefined) throw new UnknownIpnsKey(ipnsName)
    this.#keys.delete(ipnsName)
    return key
  }

  /** Every key, by name. */
  *records(): Generator<readonly [string, IpnsKey]> {
    yield* this.#keys
  }

  /** Puts back keys kept by `records`. */
  restore(keys: Iterable<IpnsKey>): void {
    for (const key of keys) this.#keys.set(key.ipnsName, key)
  }

  clear(): void {
    this.#keys.clear()
  }
}
