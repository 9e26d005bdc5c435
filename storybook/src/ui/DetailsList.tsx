/**
 * A list of terms and what each says (`<dl>`), named for assistive technology: a session, a quote,
 * a file's record. Each pair is grouped in a `<div>` (laid out as the list's own grid).
 */
import type { ReactNode } from "react"

export interface DetailsListProps {
  /** The list's accessible name. */
  readonly label: string
  /** Each term, unique in the list, with what it says, in the order shown. */
  readonly rows: ReadonlyArray<{ readonly term: string; readonly detail: ReactNode }>
}

export const DetailsList = ({ label, rows }: DetailsListProps) => (
  <dl aria-label={label}>
    {rows.map(({ term, detail }) => (
      <div key={term}>
        <dt>{term}</dt>
        <dd>{detail}</dd>
      </div>
    ))}
  </dl>
)
