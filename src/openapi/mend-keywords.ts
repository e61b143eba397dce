const COUNTS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties']
const NUMBERS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']
const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'])
/** Type names other languages use, read as the JSON type they mean. */
const TYPE_ALIASES: Record<string, string> = {
  int: 'integer',
  long: 'integer',
  float: 'number',
  double: 'number',
  bool: 'boolean',
  file: 'string',
  date: 'string',
  datetime: 'string',
  dict: 'object',
  list: 'array',
}

/** Mends or drops keywords whose values a validator cannot compile; `noted` is told each keyword touched. */
export function mendKeywords(schema: Record<string, any>, noted: (keyword: string) => void): void {
  for (const keyword of COUNTS) {
    const value = schema[keyword]
    if (value === undefined || (Number.isInteger(value) && value >= 0)) continue
    noted(keyword)
    const number = Number(value)
    if (typeof value === 'string' && Number.isInteger(number) && number >= 0) schema[keyword] = number
    else delete schema[keyword]
  }
  for (const keyword of NUMBERS) {
    const value = schema[keyword]
    if (
      value === undefined ||
      (typeof value === 'number' && Number.isFinite(value) && (keyword !== 'multipleOf' || value > 0))
    )
      continue
    noted(keyword)
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN
    if (Number.isFinite(number) && (keyword !== 'multipleOf' || number > 0)) schema[keyword] = number
    else delete schema[keyword]
  }
  if (schema.pattern !== undefined && typeof schema.pattern !== 'string') {
    noted('pattern')
    delete schema.pattern
  }
  if (schema.format !== undefined && typeof schema.format !== 'string') {
    noted('format')
    delete schema.format
  }
  if (
    schema.required !== undefined &&
    !(Array.isArray(schema.required) && schema.required.every((name: unknown) => typeof name === 'string'))
  ) {
    noted('required')
    if (Array.isArray(schema.required))
      schema.required = schema.required.filter((name: unknown) => typeof name === 'string')
    else delete schema.required
  }
  if (schema.enum !== undefined && !(Array.isArray(schema.enum) && schema.enum.length > 0)) {
    noted('enum')
    delete schema.enum
  } else if (
    Array.isArray(schema.enum) &&
    (schema.type === 'integer' || schema.type === 'number') &&
    schema.enum.some((v: unknown) => typeof v === 'string')
  ) {
    // `type: integer, enum: ["6", "12"]` (WhatsApp) has no valid value; the numbers are what was meant.
    const numbers = schema.enum.map((v: unknown) =>
      typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v,
    )
    if (numbers.every((v: unknown) => typeof v === 'number' || v === null)) {
      noted('enum')
      schema.enum = numbers
    }
  }
  for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
    const value = schema[keyword]
    if (value === undefined || (Array.isArray(value) && value.length > 0)) continue
    noted(keyword)
    // dnd5eapi.co writes `allOf: {"3": {...}}` and refers to `allOf/3/...`: the schemas it lists are
    // what was meant, each kept at its index (the gaps change nothing: `{}` in allOf, a schema no value
    // meets in anyOf and oneOf).
    const entries =
      typeof value === 'object' && value !== null
        ? Object.entries(value).filter(([, v]) => typeof v === 'object' && v !== null)
        : []
    if (entries.length === 0) delete schema[keyword]
    else if (entries.every(([key]) => /^\d{1,3}$/.test(key))) {
      const list: unknown[] = []
      for (const [key, sub] of entries) list[Number(key)] = sub
      schema[keyword] = Array.from(list, (sub) => sub ?? (keyword === 'allOf' ? {} : { not: {} }))
    } else schema[keyword] = entries.map(([, sub]) => sub)
  }
  for (const keyword of ['properties', 'patternProperties']) {
    if (
      schema[keyword] !== undefined &&
      (typeof schema[keyword] !== 'object' || schema[keyword] === null || Array.isArray(schema[keyword]))
    ) {
      noted(keyword)
      delete schema[keyword]
    }
  }
  if (schema.type !== undefined) mendType(schema, noted)
}

function mendType(schema: Record<string, any>, noted: (keyword: string) => void): void {
  const types: unknown[] = Array.isArray(schema.type) ? schema.type : [schema.type]
  if (types.every((t) => typeof t === 'string' && JSON_TYPES.has(t))) return
  noted('type')
  const mended = [
    ...new Set(
      types
        .map((t) => (typeof t === 'string' ? (JSON_TYPES.has(t) ? t : TYPE_ALIASES[t.toLowerCase()]) : undefined))
        .filter(Boolean),
    ),
  ]
  if (mended.length === 0) delete schema.type
  else schema.type = mended.length === 1 ? mended[0] : mended
}
