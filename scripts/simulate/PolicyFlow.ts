/**
 * Flow `policy`: the cost of the key-node policy. The simulation calls the 5 key nodes
 * concurrently; the library's configured default is the provider's sequential walk, 1 s between
 * two nodes. The same key recovery (3 nodes) is timed under both, on a fresh library layer for the
 * sequential one.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Redacted } from "effect"
import { Auth, KeyShards, LighthouseConfig } from "lighthouse-effect"
import { Env, libraryLayer } from "./Environment.ts"
import type { Flow } from "./Flow.ts"
import { need } from "./Session.ts"
import { check, step } from "./Step.ts"

/** The master key of `cid` for the owner, and the node policy it was recovered under. */
const recover = Effect.fnUntraced(function* (cid: string) {
  const { wallets, secrets } = yield* Env
  const auth = yield* Auth.Auth
  const shards = yield* KeyShards.KeyShards
  const config = yield* LighthouseConfig.LighthouseConfig
  const token = yield* auth.token(wallets.owner.signer)
  const start = yield* Clock.currentTimeMillis
  const key = yield* shards.fetchKey({ cid, address: wallets.owner.address, token })
  const ms = (yield* Clock.currentTimeMillis) - start
  secrets.add(Redacted.value(key))
  return { key: Redacted.value(key), mode: config.nodes.mode, ms }
})

export const policy: Flow = {
  name: "policy",
  title: "one key recovery under the concurrent and the default sequential key-node policy",
  needs: ["encryption"],
  run: Effect.gen(function* () {
    const env = yield* Env
    const [file] = yield* need("encrypted")

    const fast = yield* step(
      "nodes.concurrent",
      "key recovery, concurrent nodes",
      recover(file!.cid),
      (r) => `${r.mode}: 3 nodes at once, fetchKey ${r.ms} ms`
    )

    yield* step(
      "nodes.sequential",
      "key recovery, sequential (default)",
      recover(file!.cid).pipe(
        Effect.tap((r) => check(r.key === fast.key, "the sequential policy recovered another key")),
        // A fresh layer: the simulation's own layer is built with the concurrent policy.
        Effect.provide(libraryLayer(env, { mode: LighthouseConfig.defaults.nodes.mode }), { local: true })
      ),
      (r) => `${r.mode}: 3 nodes in turn, 1 s apart, fetchKey ${r.ms} ms (same key); sign-in included in the step`
    )
  })
}
