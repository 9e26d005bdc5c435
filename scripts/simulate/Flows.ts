/**
 * Every flow of the simulation, in the order they run: each after the flows it needs.
 *
 * @since 0.1.0
 */
import { access } from "./AccessFlow.ts"
import { account } from "./AccountFlow.ts"
import { delegation } from "./DelegationFlow.ts"
import { encryption } from "./EncryptionFlow.ts"
import { files } from "./FilesFlow.ts"
import type { Flow } from "./Flow.ts"
import { folder } from "./FolderFlow.ts"
import { ipns } from "./IpnsFlow.ts"
import { listing } from "./ListingFlow.ts"
import { payment } from "./PaymentFlow.ts"
import { pdp } from "./PdpFlow.ts"
import { pin } from "./PinFlow.ts"
import { policy } from "./PolicyFlow.ts"
import { radix } from "./RadixFlow.ts"
import { sources } from "./SourcesFlow.ts"
import { upload } from "./UploadFlow.ts"
import { walrus } from "./WalrusFlow.ts"
import { x402 } from "./X402Flow.ts"

export const flows: ReadonlyArray<Flow> = [
  account,
  payment,
  upload,
  sources,
  folder,
  encryption,
  access,
  delegation,
  radix,
  walrus,
  files,
  pin,
  x402,
  ipns,
  listing,
  policy,
  pdp
]
