/** Templated fixtures: placeholders filled from the request, and templates that stay data (#3 §2). */
import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { StartupError, type StartupErrorCode } from '../../src/errors/index.js'
import { expectStartupErrorThrown } from '../support/startup-error.js'
import { type TemplateRequest, compileTemplate } from '../../src/responses/templates.js'

const WHERE = 'The fixture fixtures/addPlant/200.json'

function request(
  overrides: Partial<Omit<TemplateRequest, 'header'>> & { headers?: Record<string, string> } = {},
): TemplateRequest {
  const { headers = {}, ...rest } = overrides
  return {
    method: 'POST',
    path: '/plants',
    params: {},
    query: new URLSearchParams(),
    body: undefined,
    header: (name) => headers[name],
    ...rest,
  }
}

/** Compiles a fixture and renders it for one request. */
function render(fixture: unknown, req: TemplateRequest = request()): unknown {
  const template = compileTemplate(fixture, WHERE)
  if (!template) throw new Error('the fixture has no placeholder')
  return template.render(req)
}

/** The StartupError compiling the fixture stops start-up with, having asserted its code. */
function compileError(fixture: unknown, code: StartupErrorCode): StartupError {
  return expectStartupErrorThrown(() => compileTemplate(fixture, WHERE), code)
}

describe('compileTemplate: what is a template', () => {
  it('returns undefined for a fixture without placeholders', () => {
    expect(compileTemplate({ name: 'Fern', tags: ['a', 1, null], nested: { n: 2 } }, WHERE)).toBeUndefined()
  })

  it('returns undefined for a bare number or null', () => {
    expect(compileTemplate(42, WHERE)).toBeUndefined()
    expect(compileTemplate(null, WHERE)).toBeUndefined()
  })

  it('leaves single braces alone', () => {
    expect(compileTemplate({ text: '{request.body.name}' }, WHERE)).toBeUndefined()
  })

  it('lists the JSON pointers of whole placeholders as slots', () => {
    const template = compileTemplate(
      {
        name: '{{request.body.name}}',
        greeting: 'Hi {{request.body.name}}',
        list: ['{{request.body.tag}}'],
        'a/b': '{{request.method}}',
      },
      WHERE,
    )
    expect(template?.slots).toEqual(['/name', '/list/0', '/a~1b'])
  })

  it('keeps values without placeholders beside rendered ones', () => {
    expect(
      render({ name: '{{request.body.name}}', kind: 'plant', count: 3 }, request({ body: { name: 'Fern' } })),
    ).toEqual({ name: 'Fern', kind: 'plant', count: 3 })
  })
})

describe('compileTemplate: whole placeholders keep the type', () => {
  it('echoes a string', () => {
    expect(render({ name: '{{request.body.name}}' }, request({ body: { name: 'Fern' } }))).toEqual({ name: 'Fern' })
  })

  it('echoes a number as a number', () => {
    expect(render({ id: '{{request.body.id}}' }, request({ body: { id: 7 } }))).toEqual({ id: 7 })
  })

  it('echoes a boolean as a boolean', () => {
    expect(render({ ok: '{{request.body.ok}}' }, request({ body: { ok: false } }))).toEqual({ ok: false })
  })

  it('echoes an object as an object', () => {
    expect(render({ pot: '{{request.body.pot}}' }, request({ body: { pot: { size: 3, color: 'red' } } }))).toEqual({
      pot: { size: 3, color: 'red' },
    })
  })

  it('echoes an array as an array', () => {
    expect(render({ tags: '{{request.body.tags}}' }, request({ body: { tags: ['a', 'b'] } }))).toEqual({
      tags: ['a', 'b'],
    })
  })

  it('takes a null request value for an absent one and drops the property', () => {
    expect(render({ tag: '{{request.body.tag}}' }, request({ body: { tag: null } }))).toEqual({})
  })

  it('allows spaces inside the braces', () => {
    expect(render({ name: '{{  request.body.name  }}' }, request({ body: { name: 'Fern' } }))).toEqual({ name: 'Fern' })
  })

  it('reads nested fields and array items of the body', () => {
    const body = { pots: [{ size: 1 }, { size: 9 }] }
    expect(
      render({ a: '{{request.body.pots[1].size}}', b: '{{request.body.pots.0.size}}' }, request({ body })),
    ).toEqual({ a: 9, b: 1 })
  })

  it('echoes the whole body', () => {
    expect(render({ received: '{{request.body}}' }, request({ body: { name: 'Fern' } }))).toEqual({
      received: { name: 'Fern' },
    })
  })

  it('renders a fixture that is one placeholder', () => {
    expect(render('{{request.body.name}}', request({ body: { name: 'Fern' } }))).toBe('Fern')
  })
})

describe('compileTemplate: absent values', () => {
  it('drops a property whose value the request lacks', () => {
    expect(
      render({ name: '{{request.body.name}}', tag: '{{request.body.tag}}' }, request({ body: { name: 'Fern' } })),
    ).toEqual({ name: 'Fern' })
  })

  it('drops the property, not only its value', () => {
    const rendered = render(
      { name: '{{request.body.name}}', tag: '{{request.body.tag}}' },
      request({ body: { name: 'Fern' } }),
    )
    expect(Object.keys(rendered as object)).toEqual(['name'])
  })

  it('drops an array item whose value the request lacks', () => {
    expect(render({ tags: ['first', '{{request.body.tag}}', 'last'] }, request({ body: {} }))).toEqual({
      tags: ['first', 'last'],
    })
  })

  it('drops a property when the request has no body at all', () => {
    expect(render({ name: '{{request.body.name}}', kind: 'plant' })).toEqual({ kind: 'plant' })
  })

  it('drops a property when a step of the path is not an object', () => {
    expect(render({ size: '{{request.body.name.length}}' }, request({ body: { name: 'Fern' } }))).toEqual({})
  })

  it('renders a whole-placeholder fixture the request lacks as null', () => {
    expect(render('{{request.body.name}}', request({ body: {} }))).toBeNull()
  })
})

describe('compileTemplate: interpolation in longer strings', () => {
  it('writes a value into surrounding text', () => {
    expect(render({ message: 'Added {{request.body.name}}.' }, request({ body: { name: 'Fern' } }))).toEqual({
      message: 'Added Fern.',
    })
  })

  it('writes several values into one string', () => {
    expect(
      render(
        { line: '{{request.method}} {{request.path}} as {{request.body.name}}' },
        request({ body: { name: 'Fern' } }),
      ),
    ).toEqual({ line: 'POST /plants as Fern' })
  })

  it('writes a number as text', () => {
    expect(render({ label: 'plant #{{request.body.id}}' }, request({ body: { id: 7 } }))).toEqual({ label: 'plant #7' })
  })

  it('writes an object as JSON text', () => {
    expect(render({ label: 'pot {{request.body.pot}}' }, request({ body: { pot: { size: 3 } } }))).toEqual({
      label: 'pot {"size":3}',
    })
  })

  it('writes an absent value as nothing and keeps the property', () => {
    expect(render({ label: 'tag: {{request.body.tag}}!' }, request({ body: {} }))).toEqual({ label: 'tag: !' })
  })
})

describe('compileTemplate: sources', () => {
  it('reads a path parameter', () => {
    expect(render({ id: '{{request.params.plantId}}' }, request({ params: { plantId: '3' } }))).toEqual({ id: '3' })
  })

  it('drops an absent path parameter', () => {
    expect(render({ id: '{{request.params.plantId}}' }, request({ params: {} }))).toEqual({})
  })

  it('reads a query parameter', () => {
    expect(
      render({ q: '{{request.query.color}}' }, request({ query: new URLSearchParams('color=green&color=red') })),
    ).toEqual({ q: 'green' })
  })

  it('drops an absent query parameter', () => {
    expect(render({ q: '{{request.query.color}}' })).toEqual({})
  })

  it('reads a header by its lower-case name whatever the case in the template', () => {
    expect(render({ id: '{{request.headers.X-Request-Id}}' }, request({ headers: { 'x-request-id': 'abc' } }))).toEqual(
      { id: 'abc' },
    )
  })

  it('reads only string header values, never members of a plain header object (#3)', () => {
    // Under node:http the headers are a plain object, so a lookup by name can reach Object.prototype.
    const headers: Record<string, unknown> = { 'x-id': 'abc' }
    const req = { ...request(), header: (name: string) => headers[name] as string | undefined }
    expect(
      render(
        {
          a: '{{request.headers.constructor}}',
          b: '{{request.headers.__proto__}}',
          c: '[{{request.headers.toString}}]',
          id: '{{request.headers.x-id}}',
        },
        req,
      ),
    ).toEqual({ c: '[]', id: 'abc' })
  })

  it('reads the method', () => {
    expect(render({ m: '{{request.method}}' }, request({ method: 'PUT' }))).toEqual({ m: 'PUT' })
  })

  it('reads the path', () => {
    expect(render({ p: '{{request.path}}' }, request({ path: '/plants/3' }))).toEqual({ p: '/plants/3' })
  })
})

describe('compileTemplate: unknown expressions stop start-up', () => {
  it.each([
    ['a root other than request', '{{response.body.name}}'],
    ['an unknown source', '{{request.cookies.id}}'],
    ['params without a name', '{{request.params}}'],
    ['query without a name', '{{request.query}}'],
    ['headers without a name', '{{request.headers}}'],
    ['a field of the method', '{{request.method.length}}'],
    ['an empty placeholder', '{{}}'],
  ])('rejects %s', (_label, placeholder) => {
    const error = compileError({ value: placeholder }, 'template_bad_expression')
    expect(error.message).toContain(`${WHERE}: "${placeholder}"`)
  })

  it('rejects an unknown expression inside a longer string', () => {
    expect(compileError({ value: 'hello {{user.name}}' }, 'template_bad_expression').message).toContain(WHERE)
  })

  it('names the accepted expressions in the message', () => {
    expect(compileError({ value: '{{request.nope}}' }, 'template_bad_expression').message).toMatch(
      /request\.body\.<field>.*request\.path/,
    )
  })
})

describe('compileTemplate: templates are data, never code (#3)', () => {
  it('does not run {{constructor.constructor(...)()}}', () => {
    expect(
      compileError({ value: "{{constructor.constructor('return process')()}}" }, 'template_bad_expression').message,
    ).toContain(WHERE)
  })

  it('does not run a function call written after request', () => {
    const outcome = safeRender(
      { value: "{{request.body.constructor.constructor('return process')()}}" },
      request({ body: {} }),
    )
    expect(outcome).not.toHaveProperty('value')
  })

  it('does not read the prototype through request.body.__proto__', () => {
    expect(render({ value: '{{request.body.__proto__}}' }, request({ body: { name: 'Fern' } }))).toEqual({})
  })

  it('does not read the constructor through request.body.constructor', () => {
    expect(render({ value: '{{request.body.constructor}}' }, request({ body: { name: 'Fern' } }))).toEqual({})
  })

  it('does not read Object.prototype members through the body', () => {
    expect(
      render({ a: '{{request.body.toString}}', b: '{{request.body.hasOwnProperty}}' }, request({ body: {} })),
    ).toEqual({})
  })

  it('reads a __proto__ key that the client sent as plain data', () => {
    const body = JSON.parse('{"__proto__":{"admin":true}}') as unknown
    expect(render({ value: '{{request.body.__proto__}}' }, request({ body }))).toEqual({ value: { admin: true } })
  })

  it('does not read the environment: {{process.env.HOME}}', () => {
    const home = process.env.HOME ?? '/root'
    const outcome = safeRender({ value: '{{process.env.HOME}}' }, request({ body: { process: 'nope' } }))
    expect(JSON.stringify(outcome ?? null)).not.toContain(home)
  })

  it('does not read files: {{../../etc/passwd}}', () => {
    const outcome = safeRender({ value: '{{../../etc/passwd}}' })
    expect(JSON.stringify(outcome ?? null)).not.toMatch(/root:/)
  })

  it('does not read a file named in a request field', () => {
    const file = '/etc/passwd'
    const outcome = render({ value: '{{request.body.file}}' }, request({ body: { file } }))
    expect(outcome).toEqual({ value: file })
    if (existsSync(file)) expect(JSON.stringify(outcome)).not.toMatch(/root:/)
  })

  it('does not look up request.body through the prototype chain of the request', () => {
    const hostile = Object.create({ name: 'inherited' }) as Record<string, unknown>
    expect(render({ name: '{{request.body.name}}' }, request({ body: hostile }))).toEqual({})
  })

  it('does not pollute Object.prototype when rendering a hostile body', () => {
    const body = JSON.parse(
      '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"name":"Fern"}',
    ) as unknown
    const rendered = render(
      {
        a: '{{request.body.__proto__}}',
        b: '{{request.body.constructor}}',
        c: '{{request.body}}',
        d: 'x {{request.body.__proto__}}',
      },
      request({ body }),
    )
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.prototype).not.toHaveProperty('polluted')
    expect(Object.getPrototypeOf(rendered)).toBe(Object.prototype)
  })

  it('renders a "__proto__" key of the fixture as a plain property, not as the prototype (#3)', () => {
    const fixture = JSON.parse('{"__proto__":{"name":"{{request.body.name}}"}}') as unknown
    const rendered = render(fixture, request({ body: { name: 'Fern' } })) as Record<string, unknown>
    expect(Object.getPrototypeOf(rendered)).toBe(Object.prototype)
    expect(JSON.stringify(rendered)).toBe('{"__proto__":{"name":"Fern"}}')
  })
})

/** Compiles and renders; a StartupError at compile time is an acceptable outcome for a hostile template. */
function safeRender(fixture: unknown, req: TemplateRequest = request()): unknown {
  let template: ReturnType<typeof compileTemplate>
  try {
    template = compileTemplate(fixture, WHERE)
  } catch (error) {
    expect(error).toBeInstanceOf(StartupError)
    return undefined
  }
  return template?.render(req)
}
