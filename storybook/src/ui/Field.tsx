/**
 * The form controls the components share, each inside its `<label>` (or a `<fieldset>` with a
 * legend, for radios) so that it is named by its visible text. They report the new value, not the
 * event.
 */
import type { InputHTMLAttributes, ReactNode } from "react"

/** One choice of a select or a radio group: the value it stands for and the text shown. */
export interface Option<Value extends string> {
  readonly value: Value
  readonly text: string
}

export interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "value" | "onChange"> {
  readonly label: ReactNode
  readonly value: string
  readonly onChange: (value: string) => void
}

export const TextField = ({ label, value, onChange, ...input }: TextFieldProps) => (
  <label className="lh-field">
    {label}
    <input {...input} value={value} onChange={(event) => onChange(event.currentTarget.value)} />
  </label>
)

export interface SelectFieldProps<Value extends string> {
  readonly label: ReactNode
  readonly value: Value
  readonly options: ReadonlyArray<Option<Value>>
  readonly onChange: (value: Value) => void
}

export const SelectField = <Value extends string>({ label, value, options, onChange }: SelectFieldProps<Value>) => (
  <label className="lh-field">
    {label}
    <select
      value={value}
      onChange={(event) => {
        const picked = event.currentTarget.value
        const option = options.find((candidate) => candidate.value === picked)
        if (option !== undefined) onChange(option.value)
      }}
    >
      {options.map((option) => (
        <option key={option.value} value={option.value}>
          {option.text}
        </option>
      ))}
    </select>
  </label>
)

export interface ChoiceProps<Value extends string> {
  readonly legend: string
  /** The radios' group name, unique in the form. */
  readonly name: string
  readonly value: Value
  readonly options: ReadonlyArray<Option<Value>>
  readonly onChange: (value: Value) => void
}

/** One of a few options, as radios. */
export const Choice = <Value extends string>({ legend, name, value, options, onChange }: ChoiceProps<Value>) => (
  <fieldset>
    <legend>{legend}</legend>
    {options.map((option) => (
      <label key={option.value}>
        <input type="radio" name={name} checked={value === option.value} onChange={() => onChange(option.value)} />{" "}
        {option.text}
      </label>
    ))}
  </fieldset>
)

/** Strings as options that are their own text (`>=`, `<=`). */
export const plainOptions = <Value extends string>(values: ReadonlyArray<Value>): ReadonlyArray<Option<Value>> =>
  values.map((value) => ({ value, text: value }))
