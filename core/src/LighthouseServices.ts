/**
 * Internal, not exported by the package: every service, `Payment` included, over the caller's HTTP
 * client and file system, for the platform layers (`Lighthouse.layer` over `fetch`,
 * `lighthouse-effect/node`'s over `node:http`) and the Promise facade to provide them.
 *
 * @since 0.1.0
 */
import type * as FileSystem from "effect/FileSystem"
import type * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import { allInOne, type Options, storageServices } from "./AllInOne.ts"
import type { ConfigConflict } from "./errors/Config.ts"
import type { Services as StorageServices } from "./LighthouseStorage.ts"
import * as Payment from "./Payment.ts"

/**
 * Everything the all-in-one layers of `Lighthouse` and `lighthouse-effect/node` provide.
 *
 * @category models
 */
export type Services = StorageServices | Payment.Payment

/** Every service, built apart from any other layer, over the caller's HTTP client and file system. */
export const everyService = (
  options: Options
): Layer.Layer<Services, ConfigConflict, FileSystem.FileSystem | HttpClient.HttpClient> =>
  allInOne(options, Layer.merge(storageServices(), Payment.layer))
