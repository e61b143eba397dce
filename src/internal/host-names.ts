import type { Context } from 'hono'

/** The request's `Host`; in process (app.request()) a request has none, and its URL says the same. */
export function requestHost(c: Context): string {
  return c.req.header('host') ?? new URL(c.req.url).host
}

/**
 * A page the developer's own tools serve: of the host the mock is reached by, of a loopback name,
 * or of a host given with `--allowed-hosts`. Such a page may change the admin API's state, and
 * read its answers through CORS; a page of any other site may do neither.
 */
export function isTrustedOrigin(origin: string, hostName: string, allowed: ReadonlySet<string>): boolean {
  const originHost = origin === 'null' ? origin : hostNameOf(origin.replace(/^[a-z][a-z0-9+.-]*:\/\//i, ''))
  return originHost === hostName || isLoopbackName(originHost) || allowed.has(originHost)
}

/** `localhost`, `*.localhost`, 127.0.0.0/8 and ::1: names that only this machine answers to. */
export function isLoopbackName(name: string): boolean {
  const bare = name.toLowerCase().replace(/^\[|\]$/g, '')
  return bare === 'localhost' || bare.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(bare) || bare === '::1'
}

/** The host name of a `Host` header or of an origin without its scheme: `[::1]:4010` → `[::1]`, `example.com:80` → `example.com`. */
export function hostNameOf(authority: string): string {
  const host = authority.trim().toLowerCase().split('/')[0]!
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '')
}
