import type { ErrorObject } from 'ajv'
import { pointerTokens } from '../spec/resolve-ref.js'

/**
 * Values that satisfy a format (as ajv-formats checks it), for formats json-schema-faker leaves
 * unknown or gets wrong.
 */
const FORMAT_SAMPLES: Record<string, string> = {
  url: 'https://example.com/',
  uri: 'https://example.com/',
  'uri-reference': '/example',
  'uri-template': 'https://example.com/{id}',
  iri: 'https://example.com/',
  'iri-reference': '/example',
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  'date-time': '2024-01-01T00:00:00Z',
  'iso-date-time': '2024-01-01T00:00:00Z',
  date: '2024-01-01',
  time: '12:00:00Z',
  'iso-time': '12:00:00Z',
  duration: 'P1D',
  uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  regex: '^[a-z]+$',
  'json-pointer': '/example',
  'json-pointer-uri-fragment': '#/example',
  'relative-json-pointer': '0/example',
  byte: 'ZXhhbXBsZQ==',
}

/**
 * Mends a freshly generated value where the validator's errors say how, in place:
 * - json-schema-faker ends recursion with `null` where the schema allows none: such a value is
 *   left out (an optional property, an array item above the minimum), as if generation had
 *   stopped one level higher;
 * - a string that breaks its format gets a sample of that format.
 * @returns whether anything changed (then the value is worth validating again)
 */
export function mendGenerated(value: unknown, errors: readonly ErrorObject[]): boolean {
  let changed = false
  const removals: string[][] = []
  for (const error of errors) {
    const tokens = pointerTokens(error.instancePath)
    const current = valueAt(value, tokens)
    if (current === null && tokens.length > 0 && (error.keyword === 'type' || error.keyword === 'oneOf' || error.keyword === 'anyOf')) {
      removals.push(tokens)
    } else if (error.keyword === 'format' && typeof current === 'string') {
      const sample = FORMAT_SAMPLES[String(error.params.format)]
      if (sample !== undefined && tokens.length > 0 && sample !== current) {
        setAt(value, tokens, sample)
        changed = true
      }
    }
  }
  // Deepest first, and later array items before earlier ones, so that indexes stay right.
  removals.sort((a, b) => b.length - a.length || compareLast(b, a))
  const seen = new Set<string>()
  for (const tokens of removals) {
    const key = tokens.join('/')
    if (seen.has(key)) continue
    seen.add(key)
    const parent = valueAt(value, tokens.slice(0, -1))
    const last = tokens[tokens.length - 1]!
    if (Array.isArray(parent)) parent.splice(Number(last), 1)
    else if (parent && typeof parent === 'object') delete (parent as Record<string, unknown>)[last]
    changed = true
  }
  return changed
}

function compareLast(a: string[], b: string[]): number {
  return Number(a[a.length - 1]) - Number(b[b.length - 1]) || 0
}

function valueAt(root: unknown, tokens: string[]): unknown {
  let node = root
  for (const token of tokens) {
    if (node === null || typeof node !== 'object') return undefined
    node = (node as Record<string, unknown>)[token]
  }
  return node
}

function setAt(root: unknown, tokens: string[], value: unknown): void {
  const parent = valueAt(root, tokens.slice(0, -1))
  if (parent && typeof parent === 'object') (parent as Record<string, unknown>)[tokens[tokens.length - 1]!] = value
}
