/** Display helpers shared by the components. */

/** Shortens an address, CID or token for display: `0x7099…79c8`. */
export const short = (value: string, keep = 6): string =>
  value.length > keep * 2 + 3 ? `${value.slice(0, keep)}…${value.slice(-4)}` : value

const units = ["B", "KB", "MB", "GB", "TB"] as const

/** `1536` → `1.5 KB` (binary units, as the provider counts storage). */
export const formatBytes = (bytes: number): string => {
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${unit === 0 ? value : value.toFixed(value < 10 ? 2 : 1)} ${units[unit]}`
}
