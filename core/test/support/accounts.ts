/**
 * Fixed test wallets and CIDs, from the one home every area's tests share
 * (`lighthouse-effect/mocks/testing`), under the names core's tests use.
 */
import { testCids, testKeys, testWallets } from "lighthouse-effect/mocks/testing"

export const keys = testKeys

export const { alice, bob, carol } = testWallets

/** A file's CID, and another one no test stores anything under unless it says so. */
export const cid = testCids.a
export const otherCid = testCids.c
