/**
 * How the transfer benchmarks measure one operation in a child process of its own, and the
 * files and client they share.
 *
 * After setup the child collects garbage twice and takes its RSS as the baseline, then samples
 * `process.memoryUsage().rss` every 5 ms during the operation (and reads the kernel's peak RSS,
 * `VmHWM`, reset at the baseline, when Linux offers it); it reports the peak's growth over the
 * baseline, the wall time and the CPU time (user + system) of the operation.
 *
 * @since 0.1.0
 */
import { execFileSync } from "node:child_process"
import { createHash, randomFillSync } from "node:crypto"
import { createReadStream, createWriteStream, readFileSync, writeFileSync } from "node:fs"
import { getHeapSpaceStatistics } from "node:v8"
import * as LighthouseNode from "lighthouse-effect/node"

export const MiB = 1024 * 1024

/** One operation's figures. */
export interface Measured {
  readonly wallMs: number
  /** User + system CPU time of the whole process during the operation. */
  readonly cpuMs: number
  readonly baselineMiB: number
  readonly peakMiB: number
  readonly growthMiB: number
  /** How much V8's young generation (its new space, committed) grew from the baseline to the end. */
  readonly youngGrowthMiB: number
  readonly cid?: string | undefined
}

const rssMiB = () => process.memoryUsage().rss / MiB

const youngMiB = () =>
  (getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0) / MiB

/** The kernel's peak RSS of this process, in MiB, when Linux tells it. */
const kernelPeakMiB = (): number | undefined => {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))
    return match === null ? undefined : Number(match[1]) / 1024
  } catch {
    return undefined
  }
}

const resetKernelPeak = () => {
  try {
    writeFileSync("/proc/self/clear_refs", "5")
    return true
  } catch {
    return false
  }
}

/** Runs `operation` once, measured (needs `--expose-gc` for the collections). */
export const measure = async (operation: () => Promise<string | undefined>): Promise<Measured> => {
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  gc?.()
  const baseline = rssMiB()
  const youngBaseline = youngMiB()
  const kernel = resetKernelPeak()
  let peak = baseline
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMiB())
  }, 5)
  const cpu = process.cpuUsage()
  const started = performance.now()
  const cid = await operation()
  const wallMs = performance.now() - started
  const used = process.cpuUsage(cpu)
  clearInterval(sampler)
  peak = Math.max(peak, rssMiB(), (kernel ? kernelPeakMiB() : undefined) ?? 0)
  return {
    wallMs,
    cpuMs: (used.user + used.system) / 1000,
    baselineMiB: baseline,
    peakMiB: peak,
    growthMiB: peak - baseline,
    youngGrowthMiB: youngMiB() - youngBaseline,
    cid
  }
}

/** This library as a Node program uses it (`LighthouseNode.layer`: `node:http`, Node's file system), pointed at `urls`. */
export const clientLayer = (urls: Readonly<Record<"api" | "node" | "gateway" | "encryption", string>>) =>
  LighthouseNode.layer({ hosts: urls })

/** A file of `mib` MiB of random bytes, written 1 MiB at a time. */
export const makeFile = async (path: string, mib: number) => {
  const out = createWriteStream(path)
  const block = new Uint8Array(MiB)
  for (let i = 0; i < mib; i++) {
    randomFillSync(block)
    if (!out.write(Buffer.from(block))) await new Promise<void>((resolve) => out.once("drain", () => resolve()))
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())))
}

export const sha256Of = async (path: string) => {
  const hash = createHash("sha256")
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
  return hash.digest("hex")
}

/** Builds the package from the sources, for children that load it as a Node program does. */
export const buildPackage = () =>
  execFileSync("npm", ["run", "-s", "build"], { cwd: new URL("../..", import.meta.url), stdio: "inherit" })

export const envNumber = (name: string) => {
  const raw = process.env[name]
  return raw === undefined || raw === "" ? undefined : Number(raw)
}
