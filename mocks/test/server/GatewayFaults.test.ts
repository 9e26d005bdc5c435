/**
 * A gateway's faults as text (`npm run serve -- --gateway …`): each item read into its fault and
 * written back the same way, and every text that cannot be served refused with its reason.
 */
import { describe, expect, it } from "vitest"
import { makeFaults } from "../../src/faults/index.ts"
import { armGatewayFaults, gatewayFaultText, parseGatewayFaults } from "../../src/server/GatewayFaults.ts"

describe("parseGatewayFaults", () => {
  it("reads each item into its fault, sizes with or without a unit", () => {
    expect(parseGatewayFaults("rate=10MiB")).toEqual([{ kind: "rate", bytesPerSecond: 10 * 1024 * 1024 }])
    expect(parseGatewayFaults("rate=1.5MiB,lie")).toEqual([
      { kind: "rate", bytesPerSecond: 1.5 * 1024 * 1024 },
      { kind: "lie", lie: "flip-byte" }
    ])
    expect(parseGatewayFaults(" slow=250 , stall-after=512KiB ")).toEqual([
      { kind: "slow", ms: 250 },
      { kind: "stall", afterBytes: 512 * 1024 }
    ])
    expect(parseGatewayFaults("stall-after=1000")).toEqual([{ kind: "stall", afterBytes: 1000 }])
    expect(parseGatewayFaults("status=429")).toEqual([{ kind: "status", status: 429 }])
    expect(parseGatewayFaults("lie=drop-block")).toEqual([{ kind: "lie", lie: "drop-block" }])
    expect(parseGatewayFaults("down")).toEqual([{ kind: "down" }])
    expect(parseGatewayFaults("honest")).toEqual([])
  })

  it("writes each fault back as the item it was read from", () => {
    for (const text of [
      "rate=10MiB",
      "rate=1536KiB",
      "rate=1000",
      "slow=250",
      "stall-after=2GiB",
      "status=503",
      "lie=truncate",
      "down"
    ]) {
      expect(parseGatewayFaults(text).map(gatewayFaultText)).toEqual([text])
    }
    expect(parseGatewayFaults("lie").map(gatewayFaultText)).toEqual(["lie=flip-byte"])
  })

  it("refuses what cannot be served, saying why", () => {
    const refusals: ReadonlyArray<readonly [string, string]> = [
      [
        "fast",
        'unknown fault "fast" (each item is rate=SIZE, slow=MS, stall-after=SIZE, lie[=LIE], status=CODE, down or honest)'
      ],
      ["rate=10MB", 'rate needs a size in bytes (e.g. 1048576, 512KiB, 10MiB), got "10MB"'],
      ["rate=0", "rate needs more than 0 bytes a second"],
      ["rate", "rate needs a value: rate=SIZE"],
      ["slow=-5", 'slow needs a whole number from 0 to 3600000, got "-5"'],
      ["status=42", 'status needs a whole number from 100 to 599, got "42"'],
      ["lie=maybe", 'lie must be one of flip-byte, drop-block, extra-block, other-file, truncate, got "maybe"'],
      ["down=1", 'down takes no value, got "down=1"'],
      ["lie,down", 'at most one of stall-after, lie, status and down, got "lie,down"'],
      ["rate=1MiB,", 'an empty fault in "rate=1MiB,"']
    ]
    for (const [text, message] of refusals) expect(() => parseGatewayFaults(text), text).toThrow(message)
  })
})

describe("armGatewayFaults", () => {
  it("arms every fault on the whole gateway", () => {
    const faults = makeFaults()
    armGatewayFaults(faults, parseGatewayFaults("rate=10MiB,status=429"))
    expect(faults.active().map((entry) => [entry.scope, entry.fault])).toEqual([
      [{ host: "gateway" }, { kind: "rate", bytesPerSecond: 10 * 1024 * 1024 }],
      [{ host: "gateway" }, { kind: "status", status: 429 }]
    ])
  })
})
