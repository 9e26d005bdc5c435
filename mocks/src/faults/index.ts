/**
 * Fault injection shared by every host of the mock network (see `Faults.ts`).
 */
export * from "./Faults.ts"
export { type GatewayLie, GatewayLies, type Lie, type NodeLie, OTHER_FILE } from "./Lies.ts"
