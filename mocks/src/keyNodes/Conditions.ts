/**
 * Whether a file's access conditions let a caller recover its shard: each condition is evaluated
 * against its chain (EVM through viem, Solana, Coreum and Radix against the in-memory ledgers) and the
 * results are combined by the aggregator. With a single condition the aggregator is ignored, as
 * the provider's validator ignores it; with none, conditions grant nothing.
 *
 * Each condition is evaluated at most once per request, and only when the aggregator needs it.
 *
 * @since 0.1.0
 */
import type { AccessCondition } from "lighthouse-effect"
import { evaluateAggregator, parseAggregator } from "./Aggregator.ts"
import { type EvmChainSource, evaluateEvmCondition } from "./EvmConditions.ts"
import { type CoreumLedger, evaluateCoreumCondition, evaluateSolanaCondition, type SolanaLedger } from "./Ledger.ts"
import type { FileRecord } from "./NodeState.ts"
import type { EvaluationContext } from "./Parameters.ts"
import { evaluateRadixCondition, type RadixLedger } from "./RadixLedger.ts"

/** What conditions are evaluated against. */
export interface ConditionEnvironment {
  readonly evm: () => EvmChainSource | undefined
  readonly solana: SolanaLedger
  readonly coreum: CoreumLedger
  readonly radix: RadixLedger
}

/** Whether the record's conditions hold for the caller in `context`. Never throws. */
export const conditionsGrant = async (
  record: FileRecord,
  context: EvaluationContext,
  environment: ConditionEnvironment
): Promise<boolean> => {
  const list = record.chainType === "SOLANA" ? record.conditionsSolana : record.conditions
  if (list.length === 0) return false

  const evaluateOne = (condition: (typeof list)[number]): Promise<boolean> => {
    switch (record.chainType) {
      case "EVM":
        return evaluateEvmCondition(condition as AccessCondition.EvmCondition, context, environment.evm())
      case "SOLANA":
        return Promise.resolve(
          evaluateSolanaCondition(condition as AccessCondition.SolanaCondition, context, environment.solana)
        )
      case "COREUM":
        return Promise.resolve(
          evaluateCoreumCondition(condition as AccessCondition.CoreumCondition, context, environment.coreum)
        )
      case "RADIX":
        return Promise.resolve(
          evaluateRadixCondition(condition as AccessCondition.RadixCondition, context, environment.radix)
        )
    }
  }

  const [only] = list
  if (list.length === 1 && only !== undefined) return evaluateOne(only)

  const results = new Map<number, Promise<boolean>>()
  const byId = (id: number): Promise<boolean> => {
    const cached = results.get(id)
    if (cached !== undefined) return cached
    const condition = list.find((c) => c.id === id)
    const result = condition === undefined ? Promise.resolve(false) : evaluateOne(condition)
    results.set(id, result)
    return result
  }
  try {
    return await evaluateAggregator(parseAggregator(record.aggregator), byId)
  } catch {
    return false
  }
}
