/**
 * One child of "Big files end to end" (`bigFile.ts`): `node --expose-gc bigChild.ts <operation>
 * <input JSON>` runs one operation of `client.ts` against the built package, measured from inside
 * after its set-up (`measure.ts`), and prints the figures as JSON. Run by plain `node` (Node 24
 * strips the types), as `wireChild.ts` is: the process holds what a Node program using the library
 * holds, and no loader, whose own heap would set the young generation's size the download starts
 * with.
 */
import { type Operation, type OperationInput, openClient } from "./client.ts"
import { measure } from "./measure.ts"

const [which, json] = process.argv.slice(2)
const input = JSON.parse(json!) as OperationInput
const client = await openClient(input.urls)
try {
  const measured = await measure(async () => (await client.run(which as Operation, input)) || undefined)
  process.stdout.write(`${JSON.stringify(measured)}\n`)
} finally {
  await client.dispose()
}
