/**
 * Records as a table named for assistive technology, one row each, under column headers; or a
 * sentence saying there are none yet.
 */
import type { ReactNode } from "react"

export interface Column<Row> {
  /** The header, unique in the table. */
  readonly name: string
  /** Read to screen readers but not shown: a column of buttons needs no visible header. */
  readonly hidden?: boolean
  readonly cell: (row: Row) => ReactNode
}

export interface DetailsTableProps<Row> {
  /** The table's accessible name. */
  readonly label: string
  readonly columns: ReadonlyArray<Column<Row>>
  readonly rows: ReadonlyArray<Row>
  /** Tells the rows apart across renders (a CID, an id). */
  readonly rowKey: (row: Row) => string
  /** Shown instead of the table when there are no rows; without it an empty table is shown. */
  readonly empty?: string
}

export const DetailsTable = <Row,>({ label, columns, rows, rowKey, empty }: DetailsTableProps<Row>) =>
  rows.length === 0 && empty !== undefined ? (
    <p>{empty}</p>
  ) : (
    <table aria-label={label}>
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column.name} scope="col">
              {column.hidden ? <span className="lh-hidden">{column.name}</span> : column.name}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)}>
            {columns.map((column) => (
              <td key={column.name}>{column.cell(row)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  )
