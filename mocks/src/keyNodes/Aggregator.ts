/**
 * The aggregator expression that combines a file's conditions, e.g. `([2] and [1]) or [3]`.
 *
 * A tiny recursive-descent parser (no `eval`): operands are condition ids written `[n]` (or a
 * bare `n`), operators are `and` / `or` in any case, `and` binds tighter than `or`, parentheses
 * group. The provider's validator only checks that ` and ` or ` or ` occurs, so anything else a
 * client sends is stored as is; here an expression that does not parse grants nothing, and an id
 * that names no condition is false (fail closed).
 *
 * Evaluation short-circuits, so a condition whose value cannot change the result is never
 * evaluated (no chain call is made for it).
 *
 * @since 0.1.0
 */

export type Expression =
  | { readonly _tag: "Condition"; readonly id: number }
  | { readonly _tag: "And"; readonly left: Expression; readonly right: Expression }
  | { readonly _tag: "Or"; readonly left: Expression; readonly right: Expression }

type Token =
  | { readonly _tag: "Id"; readonly id: number }
  | { readonly _tag: "And" }
  | { readonly _tag: "Or" }
  | { readonly _tag: "Open" }
  | { readonly _tag: "Close" }

/** Why an expression was refused, with the character offset. */
export class AggregatorSyntaxError extends Error {
  constructor(
    readonly expression: string,
    readonly offset: number,
    readonly reason: string
  ) {
    super(`aggregator "${expression}": ${reason} at ${offset}`)
  }
}

const tokenize = (input: string): Array<{ readonly token: Token; readonly offset: number }> => {
  const tokens: Array<{ token: Token; offset: number }> = []
  const pattern = /\s+|\[\s*(\d+)\s*\]|(\d+)|(and)\b|(or)\b|(\()|(\))/giy
  let offset = 0
  while (offset < input.length) {
    pattern.lastIndex = offset
    const match = pattern.exec(input)
    if (match === null) throw new AggregatorSyntaxError(input, offset, "unexpected character")
    const [text, bracketed, bare, and, or, open, close] = match
    if (bracketed !== undefined || bare !== undefined) {
      tokens.push({ token: { _tag: "Id", id: Number(bracketed ?? bare) }, offset })
    } else if (and !== undefined) tokens.push({ token: { _tag: "And" }, offset })
    else if (or !== undefined) tokens.push({ token: { _tag: "Or" }, offset })
    else if (open !== undefined) tokens.push({ token: { _tag: "Open" }, offset })
    else if (close !== undefined) tokens.push({ token: { _tag: "Close" }, offset })
    offset += text.length
  }
  return tokens
}

/** Parses an aggregator; throws `AggregatorSyntaxError` when it is not a well-formed expression. */
export const parseAggregator = (input: string): Expression => {
  const tokens = tokenize(input)
  let position = 0
  const offsetHere = () => tokens[position]?.offset ?? input.length

  const parseOr = (): Expression => {
    let left = parseAnd()
    while (tokens[position]?.token._tag === "Or") {
      position += 1
      left = { _tag: "Or", left, right: parseAnd() }
    }
    return left
  }
  const parseAnd = (): Expression => {
    let left = parseOperand()
    while (tokens[position]?.token._tag === "And") {
      position += 1
      left = { _tag: "And", left, right: parseOperand() }
    }
    return left
  }
  const parseOperand = (): Expression => {
    const current = tokens[position]?.token
    if (current?._tag === "Id") {
      position += 1
      return { _tag: "Condition", id: current.id }
    }
    if (current?._tag === "Open") {
      position += 1
      const inner = parseOr()
      if (tokens[position]?.token._tag !== "Close") throw new AggregatorSyntaxError(input, offsetHere(), "missing )")
      position += 1
      return inner
    }
    throw new AggregatorSyntaxError(
      input,
      offsetHere(),
      current === undefined ? "unexpected end" : "expected a condition"
    )
  }

  const expression = parseOr()
  if (position < tokens.length) throw new AggregatorSyntaxError(input, offsetHere(), "unexpected token")
  return expression
}

/** Evaluates a parsed aggregator, asking `condition(id)` only for the ids that decide the result. */
export const evaluateAggregator = async (
  expression: Expression,
  condition: (id: number) => Promise<boolean>
): Promise<boolean> => {
  switch (expression._tag) {
    case "Condition":
      return condition(expression.id)
    case "And":
      return (await evaluateAggregator(expression.left, condition)) && evaluateAggregator(expression.right, condition)
    case "Or":
      return (await evaluateAggregator(expression.left, condition)) || evaluateAggregator(expression.right, condition)
  }
}
