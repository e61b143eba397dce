/**
 * Text that can go into an HTTP header value. Values made from a description (a challenge naming an
 * API key header `X-Ключ`, an example with CR/LF) made Node throw while writing the answer, and every
 * such request got a 500 with a raw stack (#12). Controls are dropped (no header can be forged), and
 * what is not visible ASCII is percent-encoded, so the value still says what it means.
 */
export function toHeaderValue(text: string): string {
  if (/^[\x20-\x7e\t]*$/.test(text)) return text

  return text
    .replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, '')
    .replace(/[^\x20-\x7e\t]/gu, (c) => encodeURIComponent(c))
}

/** A header name HTTP can carry (RFC 9110 `token`): one that is not can never be sent by a client. */
export function isHeaderName(name: string): boolean {
  return /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)
}
