/**
 * The node's answer checked against the CIDs computed while sending: every answered entry must
 * carry its path's CID, in `stream` mode (contents read once, by the body) and in `blob` mode
 * (a `Blob` sent as is is read again alongside; other contents still pass once).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { type SentPart, track } from "../../src/verify/Uploaded.ts"

const encoder = new TextEncoder()
const HELLO_V0 = "QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o"
const HELLO_V1 = "bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4"

const part = (name: string, text: string, blob = false): SentPart<never> => ({
  name,
  content: Stream.make(encoder.encode(text)),
  readAgain: () => Stream.make(encoder.encode(text)),
  ...(blob ? { blob: () => new Blob([text]) } : {})
})

describe("track", () => {
  it.effect("stream mode: the answer is checked against the bytes the body sent", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const tracked = yield* track([part("hello.txt", "hello world\n")], { cidVersion: 1 }, "stream")
        for (const sent of tracked.parts) yield* Stream.runDrain(sent.content)
        const answer = { Name: "hello.txt", Hash: HELLO_V1 }
        yield* tracked.check([answer], answer)
      })
    )
  )

  it.effect("a wrong CID is CidMismatch naming the path and both CIDs", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const tracked = yield* track([part("hello.txt", "hello world\n")], { cidVersion: 0 }, "stream")
        for (const sent of tracked.parts) yield* Stream.runDrain(sent.content)
        const answer = { Name: "hello.txt", Hash: "QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH" }
        const failed = yield* Effect.flip(tracked.check([answer], answer))
        assert.strictEqual(failed._tag, "CidMismatch")
        assert.deepStrictEqual(
          { path: failed.path, expected: failed.expected, answered: failed.answered },
          { path: "hello.txt", expected: HELLO_V0, answered: "QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH" }
        )
        assert.strictEqual(
          failed.message,
          `The node answered CID QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH for "hello.txt", but the bytes sent have CID ${HELLO_V0}`
        )
      })
    )
  )

  it.effect("blob mode: Blobs are read alongside, other contents once through the body", () =>
    Effect.scoped(
      Effect.gen(function* () {
        let reads = 0
        const counted: SentPart<never> = {
          name: "dir/b.txt",
          content: Stream.suspend(() => {
            reads += 1
            return Stream.make(encoder.encode("b"))
          })
        }
        const tracked = yield* track(
          [part("dir/a.txt", "hello world\n", true), counted],
          { cidVersion: 1, wrapWithDirectory: true },
          "blob"
        )
        // The body reads only the part that is not a Blob.
        yield* Stream.runDrain(tracked.parts[1]!.content)
        const answer = { Name: "", Hash: "bafybeihwbdhbocd4mhlmdgvvlvizcqh4pb7jcxkohelg2waieuqy4q2ebe" }
        const failed = yield* Effect.flip(tracked.check([answer], answer))
        // The computed root differs from this made-up answer; the message names the wrapping directory.
        // `counted` cannot be read again, so which layout the node used is not told.
        assert.strictEqual(failed.path, "")
        assert.match(
          failed.message,
          /^The node answered CID \S+ for the upload, but the bytes sent have CID bafy\S+: the layout the node used is unknown \(the bytes cannot be read again to tell\)$/
        )
        assert.strictEqual(reads, 1)
      })
    )
  )

  it.effect("answered entries are matched by path; the result falls back to the computed root", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const tracked = yield* track([part("hello.txt", "hello world\n")], { cidVersion: 1 }, "stream")
        for (const sent of tracked.parts) yield* Stream.runDrain(sent.content)
        // kubo names an entry sent without a file name by its CID.
        const answer = { Name: HELLO_V1, Hash: HELLO_V1 }
        yield* tracked.check([answer], answer)
        const lying = { Name: "elsewhere", Hash: "QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o" }
        const failed = yield* Effect.flip(tracked.check([lying], lying))
        assert.strictEqual(failed.expected, HELLO_V1)
      })
    )
  )
})
