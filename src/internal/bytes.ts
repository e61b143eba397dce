/**
 * Bytes and text the way the web platform has them (Uint8Array, TextEncoder, `atob`), so that the
 * core runs where Node's `Buffer` does not: a browser, a service worker, an edge runtime (#28).
 */

const encoder = new TextEncoder()
const utf8 = new TextDecoder()

/** How many bytes `text` is in UTF-8, counted without encoding it (a lone surrogate counts as U+FFFD, 3 bytes). */
export function utf8ByteLength(text: string): number {
  let bytes = text.length
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit < 0x80) continue
    if (unit < 0x800) bytes += 1
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      // A surrogate pair: two units, four bytes.
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 2
        i++
      } else bytes += 2
    } else bytes += 2
  }
  return bytes
}

/** `chunks` end to end in one array of `size` bytes (their total). */
export function concatBytes(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const all = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    all.set(chunk, at)
    at += chunk.byteLength
  }
  return all
}

/** Text as UTF-8 bytes. */
export function utf8Bytes(text: string): Uint8Array {
  return encoder.encode(text)
}

/** UTF-8 bytes as text; a malformed sequence reads U+FFFD. */
export function utf8Text(bytes: Uint8Array): string {
  return utf8.decode(bytes)
}

/**
 * Bytes as ISO-8859-1, one character a byte. Not `TextDecoder('latin1')`: the WHATWG encoding of that
 * name is windows-1252, which reads 0x80-0x9F as other characters.
 */
export function latin1Text(bytes: Uint8Array): string {
  let text = ''
  // In slices: `fromCharCode` takes its arguments on the stack.
  for (let at = 0; at < bytes.byteLength; at += 8192)
    text += String.fromCharCode(...bytes.subarray(at, Math.min(at + 8192, bytes.byteLength)))
  return text
}

/** The bytes of standard base64 text (the caller checked it is base64). */
export function base64Bytes(text: string): Uint8Array {
  const binary = atob(text)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes
}

/** Bytes as standard base64 text. */
export function bytesToBase64(bytes: Uint8Array): string {
  return btoa(latin1Text(bytes))
}

/** ASCII text in base64url, without padding. */
export function asciiToBase64Url(text: string): string {
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/** base64url (padded or not) back to the text it encodes, read as Latin-1; undefined when it is not base64url. */
export function base64UrlToAscii(text: string): string | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined
  try {
    return atob(text.replace(/-/g, '+').replace(/_/g, '/'))
  } catch {
    return undefined
  }
}
