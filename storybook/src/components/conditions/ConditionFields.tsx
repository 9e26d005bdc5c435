/** One condition as a form, its fields named for its chain type (Radix names a resource, no parameters). */
import type { AccessCondition } from "lighthouse-effect"
import { plainOptions, SelectField, TextField } from "../../ui/Field.tsx"
import { comparators, type FormCondition } from "./FormCondition.ts"

export interface ConditionFieldsProps {
  readonly chainType: AccessCondition.ChainType
  readonly condition: FormCondition
  readonly onChange: (condition: FormCondition) => void
  /** Whether the check failed, and the id of the element that says why. */
  readonly invalid: boolean
  readonly describedBy: string
}

const comparatorOptions = plainOptions(comparators)

export const ConditionFields = ({ chainType, condition, onChange, invalid, describedBy }: ConditionFieldsProps) => {
  const field = (name: keyof FormCondition, label: string) => (
    <TextField
      label={label}
      value={condition[name]}
      aria-invalid={invalid}
      aria-describedby={describedBy}
      onChange={(value) => onChange({ ...condition, [name]: value })}
    />
  )
  return (
    <div className="lh-row">
      {field("chain", "Chain")}
      {field("standardContractType", "Contract type")}
      {field("contractAddress", chainType === "RADIX" ? "Resource address" : "Contract address")}
      {field("method", "Method")}
      {chainType !== "RADIX" && field("parameters", "Parameters")}
      <SelectField
        label="Comparator"
        value={condition.comparator}
        options={comparatorOptions}
        onChange={(comparator) => onChange({ ...condition, comparator })}
      />
      {field("value", "Value")}
    </div>
  )
}
