/**
 * The control plane's cost per call: the library's calls (file info, usage, an uploads page, the
 * IPNS records, a key node's auth message) against the served network over HTTP, side by side
 * with the same endpoints called through a client generated from the contract
 * (`HttpApiClient.make(LighthouseApi)`, over `fetch`), in one process and one run. Calls are taken
 * in turns (library, contract, next endpoint) so load on the machine falls on both alike; each
 * figure is the median of `BENCH_CONTROL_CALLS` calls (default 300, after 30 warm-up calls): the
 * wall time and the CPU time (user + system) of this process, the client's side only (the server
 * runs in a process of its own).
 *
 * `npx tsx scripts/bench/controlPlane.ts` prints the table; `npm run bench` also rewrites the
 * `## Control plane` section of BENCHMARKS.md.
 */
import { execFileSync } from "node:child_process"
import { loadavg } from "node:os"
import { Effect, ManagedRuntime } from "effect"
import { FetchHttpClient } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { Auth, Files, Ipns } from "lighthouse-effect"
import * as Contract from "lighthouse-effect/contract"
import * as LighthouseNode from "lighthouse-effect/node"
import { startServer } from "./network.ts"
import { figure, median, writeSection } from "./report.ts"

const calls = Number(process.env.BENCH_CONTROL_CALLS ?? 300)
if (!(Number.isInteger(calls) && calls > 0)) throw new Error("BENCH_CONTROL_CALLS must be a positive integer")
const warmUp = 30
const address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
const apiKey = "bench-control-key"

const server = await startServer(undefined, { address, apiKey })
const urls = server.urls
const library = ManagedRuntime.make(LighthouseNode.layer({ hosts: urls }))
const contract = ManagedRuntime.make(FetchHttpClient.layer)

/** One client per host, generated from the contract. */
const clients = await contract.runPromise(
  Effect.all({
    api: HttpApiClient.make(Contract.LighthouseApi, { baseUrl: urls.api }),
    node: HttpApiClient.make(Contract.LighthouseApi, { baseUrl: urls.node }),
    keys: HttpApiClient.make(Contract.LighthouseApi, { baseUrl: urls.encryption })
  })
)
const bearer = { authorization: `Bearer ${apiKey}` }

/** A file and an IPNS record of it, so every read answers something. */
const arrange = Effect.gen(function* () {
  const form = new FormData()
  form.append("file", new Blob([new TextEncoder().encode("the control plane's cost\n")]), "control.txt")
  const entry = yield* clients.node.uploadNode.add({ headers: bearer, query: { "cid-version": "1" }, payload: form })
  const cid = String((entry as { Hash: unknown }).Hash)
  const key = yield* clients.api.ipns.generateKey({ headers: bearer })
  yield* clients.api.ipns.publishRecord({ headers: bearer, query: { cid, keyName: key.ipnsName } })
  return cid
})
const cid = await contract.runPromise(arrange)

interface Side {
  readonly run: () => Promise<unknown>
}
interface Endpoint {
  readonly name: string
  readonly library: Side
  readonly contract: Side
}

const viaLibrary = <A, E>(effect: Effect.Effect<A, E, LighthouseNode.Services>): Side => ({
  run: () => library.runPromise(effect)
})
const viaContract = <A, E>(effect: Effect.Effect<A, E, never>): Side => ({ run: () => contract.runPromise(effect) })

const endpoints: ReadonlyArray<Endpoint> = [
  {
    name: "file info (`files.fileInfo`)",
    library: viaLibrary(Effect.flatMap(Effect.service(Files.Files), (files) => files.fileInfo(cid))),
    contract: viaContract(clients.api.files.fileInfo({ query: { cid } }))
  },
  {
    name: "usage (`account.userDataUsage`)",
    library: viaLibrary(Effect.flatMap(Effect.service(Files.Files), (files) => files.usage(apiKey))),
    contract: viaContract(clients.api.account.userDataUsage({ headers: bearer }))
  },
  {
    name: "uploads page (`account.filesUploaded`)",
    library: viaLibrary(Effect.flatMap(Effect.service(Files.Files), (files) => files.uploadsPage(apiKey))),
    contract: viaContract(clients.api.account.filesUploaded({ headers: bearer, query: { lastKey: "null" } }))
  },
  {
    name: "IPNS records (`ipns.getIpnsRecords`)",
    library: viaLibrary(Effect.flatMap(Effect.service(Ipns.Ipns), (ipns) => ipns.records(apiKey))),
    contract: viaContract(clients.api.ipns.getIpnsRecords({ headers: bearer }))
  },
  {
    name: "key node auth message (`keyNodeAuth.authMessage`)",
    library: viaLibrary(Effect.flatMap(Effect.service(Auth.Auth), (auth) => auth.nodeMessage(address))),
    contract: viaContract(clients.keys.keyNodeAuth.authMessage({ params: { address }, headers: { authorization: "" } }))
  }
]

interface Sample {
  readonly wallUs: number
  readonly cpuUs: number
}

/** One call, timed: wall and this process's CPU (user + system), in µs. */
const timed = async (side: Side): Promise<Sample> => {
  const cpu = process.cpuUsage()
  const start = performance.now()
  await side.run()
  const wallUs = (performance.now() - start) * 1000
  const used = process.cpuUsage(cpu)
  return { wallUs, cpuUs: used.user + used.system }
}

const samples = endpoints.map(() => ({ library: [] as Array<Sample>, contract: [] as Array<Sample> }))
const load = loadavg()[0]!
for (let round = 0; round < warmUp + calls; round++) {
  for (const [i, endpoint] of endpoints.entries()) {
    const library = await timed(endpoint.library)
    const contract = await timed(endpoint.contract)
    if (round < warmUp) continue
    samples[i]!.library.push(library)
    samples[i]!.contract.push(contract)
  }
}
const uptime = execFileSync("uptime", { encoding: "utf8" }).trim()
await library.dispose()
await contract.dispose()
await server.stop()

const medianOf = (list: ReadonlyArray<Sample>, of: keyof Sample) => median(list.map((sample) => sample[of]))
const us = (value: number) => `${figure(value)} µs`
const rows = endpoints.map((endpoint, i) => {
  const { library, contract } = samples[i]!
  const [libraryCpu, contractCpu] = [medianOf(library, "cpuUs"), medianOf(contract, "cpuUs")]
  const [libraryWall, contractWall] = [medianOf(library, "wallUs"), medianOf(contract, "wallUs")]
  return (
    `| ${endpoint.name} | ${us(libraryCpu)} | ${us(libraryWall)} | ${us(contractCpu)} | ${us(contractWall)} | ` +
    `${figure(contractCpu / libraryCpu)}× | ${figure(contractWall / libraryWall)}× |`
  )
})
const section = [
  "## Control plane",
  "",
  "`scripts/bench/controlPlane.ts`: one call of each control-plane read against `npm run serve` on loopback, through the",
  "library (`LighthouseNode.layer`) and through a client generated from the contract (`HttpApiClient.make(LighthouseApi)`",
  `over \`fetch\`), in turns in one process; medians of ${calls} calls each after ${warmUp} warm-up calls. CPU is this`,
  `process's (user + system), the client's side only. Load average ${load.toFixed(1)} at the start; at the end \`${uptime}\`.`,
  "",
  "| call | library CPU | library wall | contract client CPU | contract client wall | CPU ratio | wall ratio |",
  "|---|---|---|---|---|---|---|",
  ...rows
].join("\n")
console.log(section)
// `npm run bench` (the index) rewrites BENCHMARKS.md; a run of this file alone only prints.
if (process.env.npm_lifecycle_event === "bench") writeSection(section)
