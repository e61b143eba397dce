import type { Redaction } from './journal-entry.js'

/** Headers that carry credentials whatever the description says: the journal redacts them, recording never writes them. */
export const CREDENTIAL_HEADERS: readonly string[] = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie']

/**
 * The headers and query parameters the description's apiKey schemes read: credentials the journal
 * must not show, and recording must not write.
 */
export function redactionOf(schemes: Record<string, any> = {}): Redaction {
  const apiKeys = Object.values(schemes).filter(
    (scheme) => scheme?.type === 'apiKey' && typeof scheme.name === 'string',
  )
  return {
    headers: new Set(apiKeys.filter((s) => s.in === 'header').map((s) => String(s.name).toLowerCase())),
    query: new Set(apiKeys.filter((s) => s.in === 'query').map((s) => String(s.name))),
  }
}
