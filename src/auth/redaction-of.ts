import type { Redaction } from '../journal/journal-entry.js'

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
