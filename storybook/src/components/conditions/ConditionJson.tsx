/** The conditions as JSON, for what the form cannot say: several conditions and their aggregator. */
export interface ConditionJsonProps {
  readonly json: string
  readonly onChange: (json: string) => void
  /** Whether the check failed, and the id of the element that says why. */
  readonly invalid: boolean
  readonly describedBy: string
}

export const ConditionJson = ({ json, onChange, invalid, describedBy }: ConditionJsonProps) => (
  <label className="lh-field">
    Conditions (JSON)
    <textarea
      rows={12}
      value={json}
      spellCheck={false}
      aria-invalid={invalid}
      aria-describedby={describedBy}
      onChange={(event) => onChange(event.currentTarget.value)}
    />
  </label>
)
