/**
 * The `Data` field of a UnixFS `file` node that links to children (no data of its own, no mode
 * or mtime): the bytes `new UnixFS({ type: "file" })` with `addBlockSize` per child marshals to
 * (`Type` 2, then `filesize`, then one `blocksizes` entry per child, each a protobuf varint).
 *
 * Written by our own codec (Data.ts) rather than by `ipfs-unixfs` because its protobuf writer
 * (protons-runtime 7.1.2 and 8.0.1) encodes an unsigned 64-bit value from 2^31 to 2^32 − 1 as one byte and leaves the other
 * four of its five bytes as whatever memory held: every file of 2 GiB or more has a node with
 * such a size (the root's `filesize` up to 4 GiB, a child's `blocksizes` above), so its CID came
 * out different on every import (docs/PROTOCOL.md, "CIDs of files over 2 GiB").
 *
 * @internal
 */

import { encodeData } from "./Data.ts"

/** The `Data` of a file node whose children hold `blockSizes` bytes of content each. */
export const fileNodeData = (blockSizes: ReadonlyArray<number>): Uint8Array => encodeData({ type: "file", blockSizes })
