/**
 * One child of the "Against the wire" benchmark (`wire.ts`): `node wireChild.ts <operation> <input
 * JSON>` runs one operation of `client.ts` against the built package and prints the uploaded CID.
 * Run by plain `node` (Node 24 strips the types), so the process holds what a Node program using the
 * library holds, and no loader.
 */
import { type Operation, type OperationInput, openClient } from "./client.ts"

const [which, json] = process.argv.slice(2)
const input = JSON.parse(json!) as OperationInput
const client = await openClient(input.urls)
try {
  console.log(await client.run(which as Operation, input))
} finally {
  await client.dispose()
}
