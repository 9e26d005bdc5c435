/**
 * The contract's cases run in the browser, where the Promise facade runs: each case calls its
 * endpoints through a client generated from the contract against the network under msw, and the
 * table shows every answer, endpoint by endpoint, as declared or differing (what was expected,
 * what came).
 */
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import type { ContractCase, ContractCaseContext, ContractCheck } from "lighthouse-effect/mocks/testing"
import { useEffect, useState } from "react"
import { DetailsTable } from "../ui/DetailsTable.tsx"

export interface ContractCasesProps {
  readonly cases: ReadonlyArray<ContractCase>
  /** The network the cases run against (its state and its hosts' base URLs). */
  readonly context: () => ContractCaseContext
}

interface Row extends ContractCheck {
  readonly key: string
}

/** Runs the cases one after the other (they share the network's accounts), adding each one's rows. */
const runCases = async (
  cases: ContractCasesProps["cases"],
  context: ContractCaseContext,
  add: (rows: Array<Row>) => void
) => {
  for (const contractCase of cases) {
    const checks = await Effect.runPromise(contractCase.run(context).pipe(Effect.provide(FetchHttpClient.layer)))
    add(checks.map((check, index) => ({ ...check, key: `${contractCase.name} ${index}` })))
  }
}

const columns = [
  { name: "Endpoint", cell: (row: Row) => <code>{row.endpoint}</code> },
  { name: "Expected", cell: (row: Row) => <code>{row.expected}</code> },
  { name: "Answered", cell: (row: Row) => (row.asDeclared ? "the same" : <code>{row.actual}</code>) },
  { name: "Verdict", cell: (row: Row) => (row.asDeclared ? "as declared" : "differs") }
]

export const ContractCases = ({ cases, context }: ContractCasesProps) => {
  const [rows, setRows] = useState<ReadonlyArray<Row>>([])
  const [done, setDone] = useState(false)
  useEffect(() => {
    let live = true
    setRows([])
    setDone(false)
    void runCases(cases, context(), (more) => {
      if (live) setRows((before) => [...before, ...more])
    }).then(() => {
      if (live) setDone(true)
    })
    return () => {
      live = false
    }
  }, [cases, context])
  const differing = rows.filter((row) => !row.asDeclared).length
  return (
    <section className="lh-card" aria-labelledby="contract-title">
      <h2 id="contract-title">The contract against the network in this browser</h2>
      <p className="lh-status" role="status">
        {done
          ? `${cases.length} cases, ${rows.length} answers: ${rows.length - differing} as declared, ${differing} differ`
          : `Running ${cases.length} cases…`}
      </p>
      <DetailsTable label="Answers" columns={columns} rows={rows} rowKey={(row) => row.key} />
    </section>
  )
}
