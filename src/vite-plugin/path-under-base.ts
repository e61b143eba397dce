import { startupErrors } from '../errors/index.js'

/**
 * `base` as the plugin compares it: a leading slash, no trailing one. The root is refused: the mock
 * would then take every request, Vite's own pages and modules included.
 */
export function checkBase(base: string): string {
  const path = `/${base.trim().replace(/^\/+|\/+$/g, '')}`
  if (path === '/' || /[?#\s]/.test(path)) {
    throw startupErrors.optionBadBase(base)
  }
  return path
}

/**
 * The request target `url` as the mock sees it, `base` taken off (`/api/plants?x=1` → `/plants?x=1`),
 * or `undefined` when it is not under `base` (`/apiary` is not under `/api`).
 */
export function pathUnderBase(url: string, base: string): string | undefined {
  if (!url.startsWith(base)) return undefined
  const rest = url.slice(base.length)
  if (rest === '') return '/'
  if (rest[0] === '/') return rest
  if (rest[0] === '?') return `/${rest}`
  return undefined
}
