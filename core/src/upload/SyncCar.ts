/**
 * The blocks `Upload.sync` builds, as a CARv1 (https://ipld.io/specs/transport/car/carv1/): a
 * file's DAG built from its bytes with the layout uploads use (its root and size first, then, for
 * a file the node lacks, its blocks as CAR sections while its bytes stream past), and the folder
 * nodes of a snapshot.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { CID } from "multiformats/cid"
import { SyncSourceChanged } from "../Errors.ts"
import { type FileLink, finish, newFileDag, write } from "../unixfs/FileDag.ts"
import type { Pending } from "../unixfs/Hashing.ts"
import type { Layout } from "../unixfs/Layout.ts"
import { type Built, treeEntries } from "../unixfs/Tree.ts"
import { carV1Header } from "../verify/CarHeader.ts"

/** A block to send. */
export interface Block {
  readonly cid: CID
  readonly bytes: Uint8Array
}

const settle = <A>(value: Pending<A>): Effect.Effect<A> =>
  value instanceof Promise ? Effect.promise(() => value) : Effect.succeed(value)

const varint = (value: number): Uint8Array => {
  const bytes: Array<number> = []
  let rest = value
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80)
    rest = Math.floor(rest / 0x80)
  }
  bytes.push(rest)
  return Uint8Array.from(bytes)
}

const joined = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

/** The CAR's header: version 1, one root (no CBOR codec in the bundles that upload). */
export const carHeader = (root: CID): Uint8Array => carV1Header(root)

/** One CAR section: its length, the CID, the block (copied: the builder reuses its buffers). */
export const carSection = (block: Block): Uint8Array =>
  joined([varint(block.cid.bytes.length + block.bytes.length), block.cid.bytes, block.bytes])

/** A file's root link (CID and DAG size), from its bytes. */
export const hashFile = <E>(layout: Layout, content: Stream.Stream<Uint8Array, E>): Effect.Effect<FileLink, E> =>
  Effect.suspend(() => {
    const dag = newFileDag(layout)
    return content.pipe(
      Stream.runForEach((chunk) => settle(write(dag, chunk))),
      Effect.flatMap(() => settle(finish(dag)))
    )
  })

/**
 * A file's blocks as CAR sections, built again from its bytes; blocks in `sent` are left out and
 * the others added to it. Fails with `SyncSourceChanged` when the bytes no longer have `expected`.
 */
export const fileSections = <E>(
  layout: Layout,
  content: Stream.Stream<Uint8Array, E>,
  file: { readonly path: string; readonly cid: string },
  sent: Set<string>
): Stream.Stream<Uint8Array, E | SyncSourceChanged> =>
  Stream.suspend(() => {
    let sections: Array<Uint8Array> = []
    const dag = newFileDag({
      ...layout,
      onBlock: (cid, bytes) => {
        const key = cid.toString()
        if (sent.has(key)) return
        sent.add(key)
        sections.push(carSection({ cid, bytes }))
      }
    })
    const take = () => {
      const taken = sections
      sections = []
      return taken
    }
    const end = Effect.suspend(() => settle(finish(dag))).pipe(
      Effect.flatMap((root) =>
        root.cid.toString() === file.cid ? Effect.sync(take) : Effect.fail(new SyncSourceChanged({ path: file.path }))
      )
    )
    return content.pipe(
      Stream.mapEffect((chunk) => Effect.map(settle(write(dag, chunk)), take)),
      Stream.concat(Stream.fromEffect(end)),
      Stream.flattenIterable
    )
  })

/** The folder nodes over `files` (the snapshot's root last) and the root's CID. */
export const folderBlocks = async (
  layout: Layout,
  files: ReadonlyArray<Built>
): Promise<{ readonly root: CID; readonly blocks: ReadonlyArray<Block> }> => {
  const blocks: Array<Block> = []
  const capturing: Layout = {
    ...layout,
    wrapWithDirectory: true,
    onBlock: (cid, bytes) => blocks.push({ cid, bytes: bytes.slice() })
  }
  const entries = await treeEntries(
    files.map((built) => ({ originalPath: built.path, built })),
    capturing
  )
  return { root: entries.at(-1)!.cid, blocks }
}
