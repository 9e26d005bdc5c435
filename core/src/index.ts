/**
 * lighthouse-effect: an Effect-native client for the Lighthouse storage API.
 *
 * One namespace per module (`Upload.Upload`, `Upload.layer`), as in Effect itself.
 * Node's all-in-one layer is in `lighthouse-effect/node`; a Promise facade in
 * `lighthouse-effect/promise`.
 *
 * @since 0.1.0
 */

export * as AccessControl from "./AccessControl.ts"
export * as Auth from "./Auth.ts"
export * as FileCipher from "./crypto/FileCipher.ts"
export * as Shamir from "./crypto/Shamir.ts"
export * as Download from "./Download.ts"
export * as Errors from "./Errors.ts"
export * as Files from "./Files.ts"
export * as Ipns from "./Ipns.ts"
/** @internal The local network frees its buffers with it (`lighthouse-effect/mocks`); not for applications. */
export * as OwnedBytes from "./internal/OwnedBytes.ts"
export * as KeyNodes from "./KeyNodes.ts"
export * as KeyShards from "./KeyShards.ts"
export * as Lighthouse from "./Lighthouse.ts"
export * as LighthouseConfig from "./LighthouseConfig.ts"
export * as LighthouseStorage from "./LighthouseStorage.ts"
export * as Networks from "./Networks.ts"
export * as Payment from "./Payment.ts"
export * as PendingKeys from "./PendingKeys.ts"
export * as Chain from "./payment/Chain.ts"
export * as Signer from "./Signer.ts"
export * as AccessCondition from "./schema/AccessCondition.ts"
export * as Address from "./schema/Address.ts"
export * as Cid from "./schema/Cid.ts"
export * as Walrus from "./schema/Walrus.ts"
export * as Upload from "./Upload.ts"
export * as Mime from "./upload/Mime.ts"
export * as Verify from "./Verify.ts"
