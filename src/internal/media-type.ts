/** `Application/JSON; charset=utf-8` → `application/json`. */
export function essenceOf(mediaType: string): string {
  const semicolon = mediaType.indexOf(';')
  return (semicolon === -1 ? mediaType : mediaType.slice(0, semicolon)).trim().toLowerCase()
}

/** `application/json` or any `+json` type (`application/merge-patch+json`), given as an essence. */
export function isJsonType(essence: string): boolean {
  return essence === 'application/json' || essence.endsWith('+json')
}
