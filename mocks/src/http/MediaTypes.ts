/**
 * The IPFS media types the gateway negotiates and the IPNS routing API speaks, named once for
 * both the gateway and the IPNS records it serves.
 */
export const MediaTypes = {
  raw: "application/vnd.ipld.raw",
  car: "application/vnd.ipld.car",
  ipnsRecord: "application/vnd.ipfs.ipns-record"
} as const
