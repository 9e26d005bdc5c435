/**
 * What an object argument of the Promise facade should be, written from its schema's fields so
 * the text cannot drift from what is checked: `{ cid, address, token, dynamicData? }` (required
 * fields first, then the optional ones with `?`, each group in the schema's order). A union of
 * objects is written as the fields its members share, then the alternatives by what sets them
 * apart: `{ apiKey, deleteOrphans? } with { signer } or { address, token }`.
 *
 * @internal
 */
import * as SchemaAST from "effect/SchemaAST"

/** One field as the text names it: its name, and `?` when it may be left out. */
interface Field {
  readonly name: string
  readonly optional: boolean
}

const fieldText = (field: Field): string => `${field.name}${field.optional ? "?" : ""}`

/** Required fields first, then the optional ones, each group in the schema's order. */
const objectText = (fields: ReadonlyArray<Field>): string => {
  const ordered = [...fields.filter((field) => !field.optional), ...fields.filter((field) => field.optional)]
  return ordered.length === 0 ? "{}" : `{ ${ordered.map(fieldText).join(", ")} }`
}

const fieldsOf = (ast: SchemaAST.Objects): ReadonlyArray<Field> =>
  ast.propertySignatures.map((property) => ({
    name: String(property.name),
    optional: SchemaAST.isOptional(property.type)
  }))

const sameField = (a: Field, b: Field): boolean => a.name === b.name && a.optional === b.optional

/**
 * A union of objects: the fields every member has alike, then each member by the fields only it
 * has as it has them, named by its required ones (its optional ones when it has none required).
 */
const unionText = (members: ReadonlyArray<ReadonlyArray<Field>>): string => {
  const shared = members[0]!.filter((field) => members.every((member) => member.some((f) => sameField(f, field))))
  const alternatives = members.map((member) => {
    const own = member.filter((field) => !shared.some((f) => sameField(f, field)))
    const required = own.filter((field) => !field.optional)
    return objectText(required.length > 0 ? required : own)
  })
  const either = alternatives.join(" or ")
  return shared.length === 0 ? either : `${objectText(shared)} with ${either}`
}

/**
 * The text of an object schema, or of a union of object schemas, on its type side; undefined for
 * any other schema (a string, a `Blob`, a signer), whose text the facade's table writes itself.
 */
export const expectedOf = (ast: SchemaAST.AST): string | undefined => {
  const type = SchemaAST.toType(ast)
  if (SchemaAST.isObjects(type)) return objectText(fieldsOf(type))
  if (SchemaAST.isUnion(type) && type.types.length > 0) {
    const members = type.types.map(SchemaAST.toType)
    if (members.every(SchemaAST.isObjects)) return unionText(members.map(fieldsOf))
  }
  return undefined
}
