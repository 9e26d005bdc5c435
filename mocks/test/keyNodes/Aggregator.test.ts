/**
 * The aggregator parser and evaluator: precedence, grouping, case, syntax errors, short-circuit,
 * and a property test that printing any expression tree and parsing it back evaluates the same.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  AggregatorSyntaxError,
  type Expression,
  evaluateAggregator,
  parseAggregator
} from "../../src/keyNodes/Aggregator.ts"

const truth = (values: Record<number, boolean>) => async (id: number) => values[id] ?? false

describe("parseAggregator", () => {
  it("reads the README's form, with `and` binding tighter than `or`", () => {
    expect(parseAggregator("([2] and [1]) or [3]")).toEqual({
      _tag: "Or",
      left: { _tag: "And", left: { _tag: "Condition", id: 2 }, right: { _tag: "Condition", id: 1 } },
      right: { _tag: "Condition", id: 3 }
    })
    expect(parseAggregator("[1] or [2] and [3]")).toEqual({
      _tag: "Or",
      left: { _tag: "Condition", id: 1 },
      right: { _tag: "And", left: { _tag: "Condition", id: 2 }, right: { _tag: "Condition", id: 3 } }
    })
  })

  it("accepts any case, bare ids, spaces inside brackets and nested groups", () => {
    expect(parseAggregator("1 AND ( [ 2 ] Or 3 )")).toEqual(parseAggregator("[1] and ([2] or [3])"))
    expect(parseAggregator("((([7]))) ")).toEqual({ _tag: "Condition", id: 7 })
  })

  it.each(["", " or ", "[1] and", "([1] and [2]", "[1] and [2])", "[1] && [2]", "[1] [2]", "[a] or [1]", "or [1]"])(
    "refuses %j",
    (input) => {
      expect(() => parseAggregator(input)).toThrow(AggregatorSyntaxError)
    }
  )
})

describe("evaluateAggregator", () => {
  it("combines condition results", async () => {
    const expression = parseAggregator("([1] and [2]) or [3]")
    expect(await evaluateAggregator(expression, truth({ 1: true, 2: true }))).toBe(true)
    expect(await evaluateAggregator(expression, truth({ 1: true, 3: false }))).toBe(false)
    expect(await evaluateAggregator(expression, truth({ 3: true }))).toBe(true)
  })

  it("short-circuits: conditions that cannot change the result are not evaluated", async () => {
    const asked: Array<number> = []
    const spy = (values: Record<number, boolean>) => async (id: number) => {
      asked.push(id)
      return values[id] ?? false
    }
    await evaluateAggregator(parseAggregator("[1] and [2] and [3]"), spy({ 1: true, 2: false, 3: true }))
    expect(asked).toEqual([1, 2])
    asked.length = 0
    await evaluateAggregator(parseAggregator("[1] or ([2] and [3])"), spy({ 1: true }))
    expect(asked).toEqual([1])
  })

  it("printing any expression and parsing it back evaluates identically", async () => {
    const tree = fc.letrec<{ node: Expression }>((tie) => ({
      node: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        fc.integer({ min: 1, max: 6 }).map((id): Expression => ({ _tag: "Condition", id })),
        fc.record({ _tag: fc.constant("And" as const), left: tie("node"), right: tie("node") }),
        fc.record({ _tag: fc.constant("Or" as const), left: tie("node"), right: tie("node") })
      )
    })).node
    // Fully parenthesised printing, with a random operator case and bracket style.
    const print = (e: Expression, style: { upper: boolean; bare: boolean }): string => {
      if (e._tag === "Condition") return style.bare ? `${e.id}` : `[${e.id}]`
      const op = e._tag === "And" ? "and" : "or"
      return `(${print(e.left, style)} ${style.upper ? op.toUpperCase() : op} ${print(e.right, style)})`
    }
    const direct = (e: Expression, values: ReadonlyArray<boolean>): boolean =>
      e._tag === "Condition"
        ? (values[e.id] ?? false)
        : e._tag === "And"
          ? direct(e.left, values) && direct(e.right, values)
          : direct(e.left, values) || direct(e.right, values)

    await fc.assert(
      fc.asyncProperty(
        tree,
        fc.array(fc.boolean(), { minLength: 7, maxLength: 7 }),
        fc.record({ upper: fc.boolean(), bare: fc.boolean() }),
        async (expression, values, style) => {
          const parsed = parseAggregator(print(expression, style))
          const result = await evaluateAggregator(parsed, async (id) => values[id] ?? false)
          expect(result).toBe(direct(expression, values))
        }
      )
    )
  })
})
