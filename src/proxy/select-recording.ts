import type { Redaction } from '../journal/journal-entry.js'
import { requestHash } from './request-hash.js'
import type { RequestData } from '../common/request.js'
import type { Preferences } from '../responses/prefer.js'
import type { PlatformCrypto } from '../common/platform.js'

/**
 * Replay of `--record`: a request whose hash names one of the operation's recorded fixtures is answered
 * with it, as if it had asked with `Prefer: code=…, example=<hash>`; any other gets the normal choice,
 * where the default fixture recorded with them (`200.json`) answers. A status or example the request,
 * a scenario or a stub picks wins, and the request is then not hashed. A fixture recorded under `2XX`
 * or `default` is looked for by name alone: the file does not keep the status it was recorded with.
 */
export function selectRecording(
  recordings: ReadonlyMap<string, string>,
  preferences: Preferences,
  { request, body }: { request: RequestData; body?: Uint8Array },
  redaction: Redaction,
  sha256: PlatformCrypto['sha256'],
): Preferences {
  if (preferences.code !== undefined || preferences.example !== undefined) return preferences
  const hash = requestHash(request, body, redaction.query, sha256)
  const code = recordings.get(hash)
  if (code === undefined) return preferences
  return { ...preferences, code: /^\d{3}$/.test(code) ? Number(code) : undefined, example: hash }
}
