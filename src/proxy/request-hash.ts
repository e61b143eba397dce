import type { PlatformCrypto } from '../common/platform.js'
import type { RequestData } from '../common/request.js'

/** What a request hash looks like: the name of a recorded fixture (`200.3f9a0c1b2d4e.json`). */
export const REQUEST_HASH = /^[0-9a-f]{12}$/

/**
 * A short name for a request that is the same in every process: 12 hex characters of the SHA-256 of
 * its method, path, query parameters (sorted, so their order does not matter) and body bytes.
 * Recording names a fixture by it, and replay finds the fixture again by it.
 * Headers never enter it, so neither do the credentials they carry; query parameters the description
 * reads as API keys (`credentialQuery`) are left out too, so a recording made with one key answers
 * a request made with another. No body and an empty body hash alike, since forwarding sends neither.
 */
export function requestHash(
  request: RequestData,
  body: Uint8Array | undefined,
  credentialQuery: ReadonlySet<string>,
  sha256: PlatformCrypto['sha256'],
): string {
  const query = [...request.query()]
    .filter(([name]) => !credentialQuery.has(name))
    .sort(([a, x], [b, y]) => compare(a, b) || compare(x, y))
  // JSON keeps the parts apart ("/a" + "b=1" never reads as "/ab" + "=1"); the body, last, needs no delimiter.
  const head = encoder.encode(JSON.stringify([request.method.toUpperCase(), request.path, query]))
  const hashed = body && body.byteLength > 0 ? concat(head, body) : head
  let hex = ''
  for (const byte of sha256(hashed).subarray(0, 6)) hex += byte.toString(16).padStart(2, '0')
  return hex
}

const encoder = new TextEncoder()

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.byteLength + b.byteLength)
  joined.set(a)
  joined.set(b, a.byteLength)
  return joined
}

/** By UTF-16 code unit, as the same in every locale: `localeCompare` would tie the order to the machine. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
