/**
 * The path prefixes the description's top-level `servers` URLs name, longest first: `/api/v3` for
 * `https://api.example.com/api/v3`, for `/api/v3`, and for `https://{region}.example.com/{basePath}`
 * whose `basePath` defaults to `api/v3` (a Swagger 2.0 `basePath` arrives here as a servers URL).
 * A URL whose path is `/` or empty adds none, nor one that keeps a variable with no default.
 * Operation- and path-level `servers` are not read: their operations are served under the top-level prefixes.
 */
export function compileServerPrefixes(servers: unknown): string[] {
  if (!Array.isArray(servers)) return []
  const prefixes = new Set<string>()
  for (const server of servers) {
    const prefix = prefixOf(server)
    if (prefix !== undefined) prefixes.add(prefix)
  }
  return [...prefixes].sort((a, b) => b.length - a.length)
}

function prefixOf(server: unknown): string | undefined {
  if (typeof server !== 'object' || server === null) return undefined
  const { url, variables } = server as { url?: unknown; variables?: Record<string, { default?: unknown }> }
  if (typeof url !== 'string') return undefined
  const expanded = url.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
    const value = variables?.[name]?.default
    return typeof value === 'string' || typeof value === 'number' ? String(value) : whole
  })
  // Scheme and authority (`https://host`, `//host`) off, then query and fragment.
  const path = expanded.replace(/^([a-z][a-z0-9+.-]*:)?\/\/[^/?#]*/i, '').replace(/[?#].*$/, '')
  if (path.includes('{')) return undefined
  const segments = path.split('/').filter((segment) => segment !== '' && segment !== '.')
  return segments.length === 0 ? undefined : `/${segments.join('/')}`
}
