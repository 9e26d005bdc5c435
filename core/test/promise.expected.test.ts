/**
 * The Promise facade's texts of what an object argument should be are written from the schemas'
 * fields (`promise/Expected.ts`), so they name exactly the fields the argument is checked against.
 */
import { Schema, SchemaAST } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { facadeArguments } from "../src/promise/Arguments.ts"
import { expectedOf } from "../src/promise/Expected.ts"

/** A struct of the given fields, each a string, optional where asked. */
const structOf = (fields: ReadonlyArray<readonly [string, boolean]>) =>
  Schema.Struct(
    Object.fromEntries(
      fields.map(([name, optional]) => [name, optional ? Schema.optional(Schema.String) : Schema.String])
    )
  )

const names = fc.uniqueArray(fc.tuple(fc.stringMatching(/^[a-z][A-Za-z]{0,7}$/), fc.boolean()), {
  selector: ([name]) => name,
  minLength: 1,
  maxLength: 8
})

describe("the facade's expected texts", () => {
  it("name a struct's required fields, then its optional ones with ?, each in the schema's order", () => {
    fc.assert(
      fc.property(names, (fields) => {
        const required = fields.filter(([, optional]) => !optional).map(([name]) => name)
        const optional = fields.filter(([, optional]) => optional).map(([name]) => `${name}?`)
        expect(expectedOf(structOf(fields).ast)).toBe(`{ ${[...required, ...optional].join(", ")} }`)
      })
    )
  })

  it("write a union of structs as the fields they share, then each member by what sets it apart", () => {
    const shared = { apiKey: Schema.String, deleteOrphans: Schema.optional(Schema.Boolean) }
    const owner = Schema.Union([
      Schema.Struct({ ...shared, signer: Schema.Unknown, address: Schema.optional(Schema.String) }),
      Schema.Struct({ ...shared, address: Schema.String, token: Schema.String })
    ])
    expect(expectedOf(owner.ast)).toBe("{ apiKey, deleteOrphans? } with { signer } or { address, token }")
    const nothingShared = Schema.Union([
      Schema.Struct({ signer: Schema.Unknown, cid: Schema.String }),
      Schema.Struct({ address: Schema.String, token: Schema.String })
    ])
    expect(expectedOf(nothingShared.ast)).toBe("{ signer, cid } or { address, token }")
    // A member with nothing required of its own is named by its optional fields.
    const loose = Schema.Union([
      Schema.Struct({ cid: Schema.String, range: Schema.optional(Schema.String) }),
      Schema.Struct({ cid: Schema.String, path: Schema.String })
    ])
    expect(expectedOf(loose.ast)).toBe("{ cid } with { range? } or { path }")
  })

  it("leave any other schema to the table, which writes its text itself", () => {
    expect(expectedOf(Schema.String.ast)).toBeUndefined()
    expect(expectedOf(Schema.Union([Schema.String, Schema.Struct({ a: Schema.String })]).ast)).toBeUndefined()
    expect(expectedOf(Schema.Array(Schema.Struct({ a: Schema.String })).ast)).toBeUndefined()
  })

  it("name, for every object argument of the facade, exactly the fields its schema checks", () => {
    /** The field names of an object schema or a union of them, `undefined` (an optional argument) aside. */
    const fieldsOf = (ast: SchemaAST.AST): Set<string> | undefined => {
      const type = SchemaAST.toType(ast)
      if (SchemaAST.isObjects(type)) return new Set(type.propertySignatures.map((p) => String(p.name)))
      if (!SchemaAST.isUnion(type)) return undefined
      const members = type.types.filter((member) => !SchemaAST.isUndefined(member)).map(fieldsOf)
      if (members.length === 0 || members.some((member) => member === undefined)) return undefined
      return new Set(members.flatMap((member) => [...member!]))
    }
    let objects = 0
    for (const [service, table] of Object.entries(facadeArguments)) {
      for (const [method, args] of Object.entries(table)) {
        for (const argument of args as ReadonlyArray<{ schema: Schema.Top; expected: string }>) {
          const checked = fieldsOf(argument.schema.ast)
          if (checked === undefined) continue
          objects += 1
          const named = [...argument.expected.matchAll(/\{([^}]*)\}/g)].flatMap((braces) =>
            braces[1]!
              .split(",")
              .map((name) => name.trim().replace(/\?$/, ""))
              .filter((name) => name !== "")
          )
          expect({ at: `${service}.${method}`, named: new Set(named) }).toEqual({
            at: `${service}.${method}`,
            named: checked
          })
        }
      }
    }
    expect(objects).toBeGreaterThan(40)
  })
})
