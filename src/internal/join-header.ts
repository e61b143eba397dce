/** A header as Node gives it (a list when repeated) as one value: repeated values joined with `, ` (RFC 9110 §5.3). */
export function joinHeader(value: string | string[]): string
export function joinHeader(value: string | string[] | undefined): string | undefined
export function joinHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value
}
