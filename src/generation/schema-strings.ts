import type { ErrorObject } from 'ajv'
import RandExpModule from 'randexp'
import { compilePattern } from '../validation/compile-pattern.js'
import { type GenerationBudget, exceedsBudget } from './generation-budget.js'
import { isPlainObject } from '../internal/plain-object.js'

/**
 * Values that satisfy a format (as ajv-formats checks it), for formats json-schema-faker leaves
 * unknown or gets wrong.
 */
const FORMAT_SAMPLES: Record<string, string[]> = {
  url: ['https://example.com/'],
  uri: ['https://example.com/'],
  'uri-reference': ['/example'],
  'uri-template': ['https://example.com/{id}'],
  iri: ['https://example.com/'],
  'iri-reference': ['/example'],
  email: ['user@example.com'],
  'idn-email': ['user@example.com'],
  hostname: ['example.com'],
  'idn-hostname': ['example.com'],
  // Several lengths: descriptions pin date-times to one with minLength/maxLength (telstra: 24).
  'date-time': [
    '2024-01-01T00:00:00Z',
    '2024-01-01T00:00:00.000Z',
    '2024-01-01T00:00:00+00:00',
    '2024-01-01T00:00:00.000+00:00',
  ],
  'iso-date-time': ['2024-01-01T00:00:00Z', '2024-01-01T00:00:00.000Z'],
  date: ['2024-01-01'],
  time: ['12:00:00Z', '12:00:00.000Z', '12:00:00+00:00'],
  'iso-time': ['12:00:00Z'],
  duration: ['P1D'],
  uuid: ['3fa85f64-5717-4562-b3fc-2c963f66afa6'],
  ipv4: ['192.0.2.1'],
  ipv6: ['2001:db8::1'],
  regex: ['^[a-z]+$'],
  'json-pointer': ['/example'],
  'json-pointer-uri-fragment': ['#/example'],
  'relative-json-pointer': ['0/example'],
  byte: ['ZXhhbXBsZQ=='],
}

/** Samples of the schema's format that its length bounds allow, as written and upper-cased. */
function formatSamples(schema: Record<string, any> | undefined, format: string): string[] {
  const samples = FORMAT_SAMPLES[format] ?? []
  return [...samples, ...samples.map((sample) => sample.toUpperCase())].filter(
    (sample) => sample.length >= (schema?.minLength ?? 0) && sample.length <= (schema?.maxLength ?? Infinity),
  )
}

/**
 * A string for a string that breaks its schema, where one can be made without the faker: a sample of
 * its format that fits its length bounds, or (json-schema-faker's own pattern reader misses much,
 * `\u000A`, nested groups) a string its pattern matches, made with randexp.
 */
export function stringFor(
  error: ErrorObject,
  schema: Record<string, any> | undefined,
  budget: GenerationBudget,
  random: () => number,
): string | undefined {
  if (!isPlainObject(schema) || exceedsBudget(schema, budget)) return undefined
  if (!['format', 'minLength', 'maxLength', 'pattern'].includes(error.keyword)) return undefined
  // A sample of the format that the pattern matches too (loket.nl: an upper-case uuid), where both are given.
  const pattern = typeof schema.pattern === 'string' ? compilePattern(schema.pattern, 'u') : undefined
  const sample =
    typeof schema.format === 'string'
      ? formatSamples(schema, schema.format).find((s) => !pattern || pattern.test(s))
      : undefined
  if (sample !== undefined) return sample
  if (error.keyword === 'pattern' && typeof schema.pattern === 'string')
    return stringMatching(schema.pattern, schema, random)
  return undefined
}

/** randexp is CommonJS, typed from its JavaScript: imported from ESM, its `module.exports` is the default export. */
const RandExp = RandExpModule as unknown as new (pattern: RegExp) => {
  max: number
  gen(): string
  randInt(low: number, high: number): number
}

/**
 * A string the pattern matches and the schema's length bounds allow, made with randexp, or
 * `undefined` when it cannot read the pattern (look-behinds) or misses after a few tries.
 */
export function stringMatching(source: string, schema: Record<string, any>, random: () => number): string | undefined {
  const pattern = compilePattern(source, 'u')
  for (const flags of ['u', '']) {
    let generator: InstanceType<typeof RandExp>
    try {
      generator = new RandExp(new RegExp(source, flags))
    } catch {
      continue
    }
    generator.max = 8
    // randexp draws from Math.random unless told: the caller's numbers keep a static body the same on every run.
    generator.randInt = (low, high) => low + Math.floor(random() * (high - low + 1))
    for (let attempt = 0; attempt < 10; attempt++) {
      const text = generator.gen()
      const long = typeof schema.maxLength === 'number' ? text.length <= schema.maxLength : true
      if (pattern.test(text) && long && text.length >= (schema.minLength ?? 0)) return text
    }
  }
  return undefined
}
