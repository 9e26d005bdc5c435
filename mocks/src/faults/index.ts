/**
 * Fault injection shared by every host of the mock network (see `Faults.ts`).
 */
export * from "./Faults.ts"
