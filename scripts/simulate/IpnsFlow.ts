/**
 * Flow `ipns`: a stable name for changing content. The owner generates an IPNS key, publishes the
 * text it uploaded under it, finds it in its records, opens the name on the gateway
 * (`/ipns/{k51…}`, with plain `fetch`, as a browser would) and gets the text, then removes the key.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { Ipns } from "lighthouse-effect"
import { Env } from "./Environment.ts"
import type { Flow } from "./Flow.ts"
import { need } from "./Session.ts"
import { CheckFailed, check, sameBytes, step } from "./Step.ts"

export const ipns: Flow = {
  name: "ipns",
  title: "generate a key, publish, list, resolve on the gateway, remove",
  needs: ["upload"],
  run: Effect.gen(function* () {
    const { network } = yield* Env
    const names = yield* Ipns.Ipns
    const apiKey = yield* need("apiKey")
    const text = yield* need("text")

    const key = yield* step(
      "ipns.generateKey",
      "generate an IPNS key",
      names.generateKey(apiKey),
      (k) => `${k.ipnsName} → ${k.ipnsId}`
    )

    yield* step(
      "ipns.publishRecord",
      "publish the note under it",
      Effect.tap(names.publishRecord(apiKey, { cid: text.cid, keyName: key.ipnsName }), (record) =>
        check(record.Value === `/ipfs/${text.cid}`, `published ${record.Value}, not /ipfs/${text.cid}`)
      ),
      (record) => `${record.Name} → ${record.Value}`
    )

    yield* step(
      "ipns.records",
      "list IPNS records",
      Effect.tap(names.records(apiKey), (records) =>
        check(
          records.some((r) => r.ipnsId === key.ipnsId && r.cid === text.cid),
          "the new key is not in the records"
        )
      ),
      (records) => `${records.length} record: ${records.map((r) => `${r.ipnsName} → ${r.cid}`).join(", ")}`
    )

    yield* step(
      "ipns.resolve",
      "open /ipns/<name> on the gateway",
      Effect.gen(function* () {
        const url = `${network.hosts.gateway}/ipns/${key.ipnsId}`
        const body = yield* Effect.tryPromise({
          try: async () => {
            const response = await fetch(url)
            if (!response.ok) throw new Error(`HTTP ${response.status}`)
            return new Uint8Array(await response.arrayBuffer())
          },
          catch: (e) => new CheckFailed({ message: `GET ${url}: ${e instanceof Error ? e.message : e}` })
        })
        yield* check(sameBytes(body, text.bytes), "the name resolves to other bytes than the note")
        return body.length
      }),
      (size) => `${size} B, the note's bytes`
    )

    yield* step(
      "ipns.removeKey",
      "remove the key",
      Effect.gen(function* () {
        const removed = yield* names.removeKey(apiKey, key.ipnsName)
        const left = yield* names.records(apiKey)
        yield* check(!left.some((r) => r.ipnsId === key.ipnsId), "the key is still listed")
        return removed
      }),
      (removed) => `removed ${removed.Keys.map((k) => k.Name).join(", ")}; no longer listed`
    )
  })
}
