import { describe, expect, it } from 'vitest'
import { MAX_FORM_DEPTH, fieldsOf, pathOf, withoutFieldsReported } from '../../src/validation/form-fields.js'
import type { FormPlan } from '../../src/validation/form-plan.js'

/** A plan where `scope`, `meta` (objects) and `expand`, `items` (arrays) nest, and `a[b]` is declared as a name. */
const plan: FormPlan = {
  declared: new Set(['name', 'scope', 'meta', 'expand', 'items', 'a[b]', 'a']),
  nested: new Set(['scope', 'meta', 'expand', 'items', '__proto__', 'constructor']),
  objects: new Set(['scope', 'meta']),
  json: new Set(),
  jsonArrays: new Set(),
  reservedRefused: new Set(),
  emptyRefused: new Set(),
}

/** The fields of a urlencoded body, read as the mock reads it. */
const fields = (text: string, withPlan: FormPlan | null = plan) =>
  fieldsOf(new URLSearchParams(text), withPlan ?? undefined)

describe('fieldsOf: flat fields', () => {
  it('keeps a field sent once as its value and a repeated one as an array, in order', () => {
    expect(fields('name=Fern&tag=a&tag=b&tag=c')).toEqual({ name: 'Fern', tag: ['a', 'b', 'c'] })
  })

  it('takes bracketed names literally without a plan', () => {
    expect(fields('scope[type]=x', null)).toEqual({ 'scope[type]': 'x' })
  })

  it('keeps a field named __proto__ as a field', () => {
    const result = fields('__proto__=x')
    expect(Object.hasOwn(result, '__proto__')).toBe(true)
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype)
  })
})

describe('fieldsOf: bracketed names', () => {
  it('decodes deepObject keys into an object', () => {
    expect(fields('scope[type]=account&scope[user]=u1')).toEqual({ scope: { type: 'account', user: 'u1' } })
  })

  it('decodes indexes and [] into arrays', () => {
    expect(fields('expand[0]=a&expand[1]=b')).toEqual({ expand: ['a', 'b'] })
    expect(fields('expand[]=a&expand[]=b')).toEqual({ expand: ['a', 'b'] })
    expect(fields('expand[]=a')).toEqual({ expand: ['a'] })
  })

  it('orders items by index, not by arrival, and numerically', () => {
    expect(fields('expand[10]=k&expand[2]=c&expand[0]=a')).toEqual({ expand: ['a', 'c', 'k'] })
  })

  it('compacts sparse and huge indexes instead of allocating holes', () => {
    const result = fields('expand[99999999999999999999]=z&expand[5]=f')
    expect(result).toEqual({ expand: ['f', 'z'] })
  })

  it('decodes arrays of objects to any depth', () => {
    expect(fields('items[0][price]=p1&items[1][price]=p2&items[1][tiers][0][up_to]=5')).toEqual({
      items: [{ price: 'p1' }, { price: 'p2', tiers: [{ up_to: '5' }] }],
    })
  })

  it('keeps numeric keys as keys of a property that holds objects', () => {
    expect(fields('meta[0]=x&meta[1]=y')).toEqual({ meta: { 0: 'x', 1: 'y' } })
  })

  it('makes a nested object where keys are not all indexes', () => {
    expect(fields('expand[0]=a&expand[x]=b')).toEqual({ expand: { 0: 'a', x: 'b' } })
  })

  it('keeps repeated nested keys as arrays', () => {
    expect(fields('meta[k]=a&meta[k]=b')).toEqual({ meta: { k: ['a', 'b'] } })
  })

  it('keeps a name declared with brackets as it is', () => {
    expect(fields('a[b]=1')).toEqual({ 'a[b]': '1' })
  })

  it('keeps names whose head is undeclared or not nested as they are', () => {
    expect(fields('other[x]=1&name[x]=2')).toEqual({ 'other[x]': '1', 'name[x]': '2' })
  })

  it('keeps a name sent both as text and with brackets, so that the schema can refuse it', () => {
    expect(fields('scope=x&scope[type]=y')).toEqual({ scope: ['x', { type: 'y' }] })
    expect(fields('expand=a&expand[]=b')).toEqual({ expand: ['a', 'b'] })
  })
})

describe('pathOf', () => {
  it('splits a bracketed name into keys', () => {
    expect(pathOf('items[0][price]', plan)).toEqual(['items', '0', 'price'])
    expect(pathOf('expand[]', plan)).toEqual(['expand', ''])
  })

  it('takes malformed names literally', () => {
    for (const name of ['scope[type', 'scope[a]b', 'scope[a[b]]', 'scope]x[', '[x]', 'scope'])
      expect(pathOf(name, plan), name).toBeUndefined()
  })

  it(`decodes ${MAX_FORM_DEPTH} levels and takes a deeper name literally`, () => {
    expect(pathOf(`scope${'[a]'.repeat(MAX_FORM_DEPTH)}`, plan)).toHaveLength(MAX_FORM_DEPTH + 1)
    expect(pathOf(`scope${'[a]'.repeat(MAX_FORM_DEPTH + 1)}`, plan)).toBeUndefined()
  })
})

describe('fieldsOf: hostile input', () => {
  it('does not pollute prototypes through bracketed keys', () => {
    const result = fields(
      '__proto__[polluted]=1&constructor[prototype][polluted]=1&scope[__proto__][polluted]=1&scope[constructor][prototype][polluted]=1',
    )
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.getPrototypeOf(result.scope)).toBe(Object.prototype)
    expect(Object.hasOwn(result.scope as object, '__proto__')).toBe(true)
    expect(result.constructor).toEqual({ prototype: { polluted: '1' } })
  })

  // Not a timed test: quadratic work on 100,000 fields (copying the list per repeat, as it once did:
  // 40,000 took 11 s) would run for minutes, far past the test's time limit; linear work takes milliseconds.
  it('reads 100,000 repeats of a field, the most a body may have', () => {
    const entries = Array.from({ length: 100_000 }, (): [string, string] => ['expand[]', 'a'])
    expect((fieldsOf(entries, plan).expand as unknown[]).length).toBe(100_000)
  })

  it('reads a deeply bracketed, unclosed name in one pass', () => {
    const name = `scope${'['.repeat(200_000)}`
    expect(fields(`${name}=1`)).toEqual({ [name]: '1' })
  })
})

describe('withoutFieldsReported', () => {
  it('drops the schema’s complaints about a field reported as unparsable, and keeps the others', () => {
    const reported = [{ path: 'body.podcast', message: 'is not valid JSON (x)' }]
    const violations = [
      { path: 'body.podcast', message: 'must be an object' },
      { path: 'body.podcast.title', message: 'is required' },
      { path: 'body.podcasts', message: 'must be a string' },
    ]
    expect(withoutFieldsReported(violations, reported)).toEqual([
      ...reported,
      { path: 'body.podcasts', message: 'must be a string' },
    ])
  })
})
