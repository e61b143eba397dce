/** Header values by name as a parsed object holds them: one line, or a list (several `Set-Cookie`). */
export type HeaderLists = Readonly<Record<string, string | readonly string[] | undefined>>

/**
 * A fetch `Headers` of such an object, a list's items appended one by one so that they stay apart
 * (a `Headers` made from the object would join them); a missing value is left out.
 */
export function fetchHeadersOf(source: HeaderLists): Headers {
  const headers = new Headers()
  for (const name in source) {
    const value = source[name]
    if (typeof value === 'string') headers.append(name, value)
    else if (value !== undefined) for (const item of value) headers.append(name, item)
  }
  return headers
}
