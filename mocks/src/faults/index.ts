/**
 * Fault injection shared by every host of the mock network (see `Faults.ts`).
 */
export * from "./Faults.ts"
export { GatewayLies, type GatewayLie, type Lie, type NodeLie, OTHER_FILE } from "./Lies.ts"
