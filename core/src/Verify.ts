/**
 * Content checked against its CID, on its own: the CIDs bytes will have once uploaded (kubo's
 * `ipfs add` settings), a CAR answer read and checked block by block as it streams, and a file
 * read block by block from any source of raw blocks. `Upload` and `Download` use these by default;
 * they are here for callers with their own transport.
 *
 * @since 0.1.0
 */
/**
 * The `Data` of a UnixFS `file` node over children of the given content sizes, right for every
 * size (ipfs-unixfs's writer leaves bytes unwritten for sizes from 2^31 to 2^32 − 1).
 *
 * @since 0.1.0
 */
export { fileNodeData } from "./unixfs/FileData.ts"
/**
 * The UnixFS import profiles of IPIP-499 (https://specs.ipfs.tech/ipips/ipip-0499/) and what each
 * fixes: chunk size, links per file node, folder sharding, raw leaves by default.
 *
 * @since 0.1.0
 */
export { PROFILES, type Profile, type ProfileShape, profileShape } from "./unixfs/Layout.ts"
export { MAX_BLOCK_BYTES, verifyCar } from "./verify/Car.ts"
export { rawBlockSource, verifyBlocks } from "./verify/RawBlocks.ts"
export type { VerificationReport, VerifyOptions } from "./verify/Retrieval.ts"
export { CAR_ACCEPT, RAW_ACCEPT, type TrustlessFormat, type Verification } from "./verify/Trustless.ts"
export {
  type AddSettings,
  type CidCalculator,
  calculator,
  cidsOf,
  type ImportedEntry
} from "./verify/UnixfsCids.ts"
export type { BlockSource, ByteRange, Target } from "./verify/Walk.ts"
