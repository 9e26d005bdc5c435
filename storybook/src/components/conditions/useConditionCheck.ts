/**
 * The conditions being edited, read from the form or the JSON and checked on every change by the
 * same schema the key nodes validate with, so that a mistake shows before anything is sent.
 */
import { Effect, Result } from "effect"
import { AccessCondition } from "lighthouse-effect"
import { useMemo } from "react"
import { conditionOf, type FormCondition } from "./FormCondition.ts"

export type EditMode = "form" | "json"

export interface Draft {
  readonly mode: EditMode
  readonly chainType: AccessCondition.ChainType
  readonly form: FormCondition
  readonly json: string
  /** Empty when there is none. */
  readonly aggregator: string
}

export interface ConditionCheck {
  /** The conditions as typed, when they can be read at all (even if invalid). */
  readonly conditions?: ReadonlyArray<unknown>
  /** Why the conditions cannot be applied; absent when they are valid. */
  readonly problem?: string
}

/** The conditions as typed, or why they cannot even be read. */
const read = (draft: Draft): ConditionCheck => {
  if (draft.mode === "form") return { conditions: [conditionOf(draft.chainType, draft.form)] }
  try {
    return { conditions: JSON.parse(draft.json) as ReadonlyArray<unknown> }
  } catch (error) {
    return { problem: `Conditions are not valid JSON: ${(error as Error).message}` }
  }
}

/** The key nodes' own validation, run synchronously: it reads nothing from outside. */
const validate = (draft: Draft, conditions: ReadonlyArray<unknown>): string | undefined =>
  Result.match(
    Effect.runSync(
      Effect.result(
        AccessCondition.validateConditions({
          conditions,
          chainType: draft.chainType,
          ...(draft.aggregator === "" ? {} : { aggregator: draft.aggregator })
        })
      )
    ),
    { onSuccess: () => undefined, onFailure: (error) => error.message }
  )

const check = (draft: Draft): ConditionCheck => {
  const typed = read(draft)
  if (typed.conditions === undefined) return typed
  const problem = validate(draft, typed.conditions)
  return problem === undefined ? typed : { conditions: typed.conditions, problem }
}

export const useConditionCheck = ({ mode, chainType, form, json, aggregator }: Draft): ConditionCheck =>
  useMemo(() => check({ mode, chainType, form, json, aggregator }), [mode, chainType, form, json, aggregator])
