/** A URL the mock sends to or forwards to: `http:` or `https:` with a host (`--proxy`, `--webhook-url`, a webhook's target). */
export function isWebUrl(value: unknown): value is string {
  return typeof value === 'string' && /^https?:\/\/[^/]/i.test(value)
}
