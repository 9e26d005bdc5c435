/**
 * The set-up the resumed-download tests (plain and encrypted) share: the mock network with a
 * gateway `A` of its own, read over `node:http` on the `TestClock`, a file of ten leaves, a
 * temporary directory per test, the CAR ranges a gateway was asked for, and the bytes the
 * gateways answered while an effect ran.
 */
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Effect } from "effect"
import { makeVirtualTime } from "../support/network.ts"
import { makeHarness } from "../upload/harness.ts"

/** The gateway the interrupted downloads are sent to. */
export const A = "https://gw-a.example"
/** The node's leaf size: the stored file is ten of them under one root. */
export const LEAF = 256 * 1024
export const SIZE = 10 * LEAF
export const gateway = { host: "gateway" } as const

/** Starts the network for the current test file (call it at the file's top level). */
export const makeResumeHarness = (tempPrefix: string) => {
  const { network, server, log, layerWith } = makeHarness({ gateways: [A] })
  // A body aborted half-way over msw's `fetch` trips an assertion inside undici; Node applications use node:http.
  const layer = layerWith({}, "node:http")
  const time = makeVirtualTime()
  time.watch(server)

  const tempDir = Effect.acquireRelease(
    Effect.promise(() => fs.mkdtemp(nodePath.join(os.tmpdir(), tempPrefix))),
    (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
  )

  /** The CAR requests of gateway `base`, as `entity-bytes` (`-` for the whole file). */
  const asked = (base: string) =>
    log
      .filter((request) => request.url.origin === base && request.url.searchParams.get("format") === "car")
      .map((request) => request.url.searchParams.get("entity-bytes") ?? "-")

  /** The body bytes the gateways answer (`/ipfs/`; key-node answers are not counted) while `effect` runs. */
  const countingGatewayBytes = <Out, E, R>(effect: Effect.Effect<Out, E, R>) =>
    Effect.gen(function* () {
      let served = 0
      const reading: Array<Promise<void>> = []
      const listener = ({ request, response }: { request: Request; response: Response }) => {
        if (!new URL(request.url).pathname.startsWith("/ipfs/")) return
        reading.push(
          response
            .clone()
            .arrayBuffer()
            .then((body) => {
              served += body.byteLength
            })
        )
      }
      server.events.on("response:mocked", listener)
      const result = yield* effect.pipe(
        Effect.ensuring(Effect.sync(() => server.events.removeListener("response:mocked", listener)))
      )
      yield* Effect.promise(() => Promise.all(reading))
      return { result, served }
    })

  return { network, log, layer, time, faultsA: network.gateways[0]!.faults, tempDir, asked, countingGatewayBytes }
}
