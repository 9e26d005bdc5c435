/**
 * Points the provider's own SDK (`@lighthouse-web3/sdk`) at a served local network over HTTP.
 *
 * The SDK reads its hosts from a module-level configuration object, and its sign-in
 * (`getAuthMessage`) goes through its `@lighthouse-web3/kavach`, which has a configuration object
 * of its own; both are set here, in the copies the installed SDK itself loads. Call it before using
 * the SDK; the function it returns puts the production hosts back.
 *
 * ```ts
 * import { pointProviderSdkAt } from "lighthouse-effect/mocks/server"
 * const restore = pointProviderSdkAt({ api: "http://127.0.0.1:8731", node: "http://127.0.0.1:8732",
 *   gateway: "http://127.0.0.1:8733", encryption: "http://127.0.0.1:8734" })
 * ```
 */
import { createRequire } from "node:module"
import type { HostName } from "../faults/index.ts"

type Mutable = Record<string, unknown>

export const pointProviderSdkAt = (urls: Readonly<Record<HostName, string>>): (() => void) => {
  // Resolved from the SDK's own folder, so these are the very objects its modules read.
  const sdkRequire = createRequire(createRequire(import.meta.url).resolve("@lighthouse-web3/sdk"))
  const sdk = (sdkRequire("../lighthouse.config") as { lighthouseConfig: Mutable }).lighthouseConfig
  const kavach = (sdkRequire("@lighthouse-web3/kavach/dist/config") as { defaultConfig: Mutable }).defaultConfig
  const saved = { sdk: { ...sdk }, kavach: { ...kavach } }
  Object.assign(sdk, {
    lighthouseAPI: urls.api,
    lighthouseNode: urls.node,
    lighthouseGateway: urls.gateway,
    lighthouseBLSNode: urls.encryption
  })
  Object.assign(kavach, { lighthouseAuthNode: urls.encryption, lighthouseBLSNode: urls.encryption, isDev: false })
  return () => {
    Object.assign(sdk, saved.sdk)
    Object.assign(kavach, saved.kavach)
  }
}
