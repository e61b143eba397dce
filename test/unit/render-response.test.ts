/**
 * What rendering knows an answer breaks (`src/responses/render-response.ts`, #13): told in
 * `violations`, from start-up (a made-up header, an undeclared 204) or from the checks a generated
 * body gets anyway; a body checked at start-up is served with none, and nothing is validated twice.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../../src/common/log.js'
import type { DeclaredResponse } from '../../src/responses/declared-responses.js'
import { createFaker } from '../../src/generation/fake.js'
import { createSampler } from '../../src/generation/sample-body.js'
import { GENERATION_BUDGET } from '../../src/generation/generation-budget.js'
import { type RenderContext, renderDeclared, renderResponse } from '../../src/responses/render-response.js'
import type { ResponsePlan } from '../../src/responses/select-response.js'
import { selectResponse } from '../../src/responses/select-response.js'
import { compileAt, createAjv, addDescriptionSchema } from '../../src/validation/create-ajv.js'
import { documentWithResponses, jsonResponse, responsesOf } from '../support/builders.js'

// json-schema-faker is loaded on demand (#33); the engine loads it at start-up, and these make fakers of their own.
beforeAll(() => createFaker({}, 0).load())

/** No integer from 1 to 1.5 is a multiple of 2: no generated body meets it, and mending cannot either. */
const unmakeable = {
  type: 'object',
  required: ['count'],
  properties: { count: { type: 'integer', minimum: 1, maximum: 1.5, multipleOf: 2 } },
}

function contextFor(document: Record<string, any>): RenderContext {
  return {
    document,
    logger: silentLogger,
    faker: createFaker(document, 1),
    sampler: createSampler(document, { fillProperties: true, budget: GENERATION_BUDGET, beyondBudget: false }),
    dynamic: false,
    unsatisfied: new Set(),
    budget: GENERATION_BUDGET,
    beyondBudget: false,
    explain: (pointer) => compileAt(addDescriptionSchema(createAjv({ verbose: true }), document), pointer),
  }
}

function planFor(document: Record<string, any>, prefer = {}): ResponsePlan {
  return selectResponse({ id: 'addThing', responses: responsesOf(document) }, prefer, { dynamic: false })
}

describe('renderResponse: violations', () => {
  it('tells that an operation without a final response answers a 204 it does not declare', () => {
    const rendered = renderResponse({ status: 204, source: { kind: 'empty' } }, contextFor(documentWithResponses({})))
    expect(rendered).toEqual({
      status: 204,
      body: null,
      violations: [
        { path: 'status', message: 'is 204, which the operation does not declare (it declares no final response)' },
      ],
    })
  })

  it('serves a body checked at start-up with no violations at all', () => {
    const document = documentWithResponses({ '200': jsonResponse({ type: 'object' }, { example: { ok: true } }) })
    const rendered = renderResponse(planFor(document), contextFor(document))
    expect(rendered).toEqual({
      status: 200,
      contentType: 'application/json',
      headers: undefined,
      body: '{"ok":true}',
      // The example served, which coverage counts (#29).
      staticBody: expect.objectContaining({ name: 'default', origin: 'example' }),
    })
  })

  it('serves a generated body that meets its schema with no violations', () => {
    const document = documentWithResponses({
      '200': jsonResponse({ type: 'object', required: ['id'], properties: { id: { type: 'integer' } } }),
    })
    const rendered = renderResponse(planFor(document), contextFor(document))
    expect(rendered).not.toHaveProperty('violations')
  })

  it('tells how a generated body that no mending could fix breaks its schema, every time it is served', () => {
    const document = documentWithResponses(
      { '200': jsonResponse({ $ref: '#/components/schemas/Node' }) },
      { Node: unmakeable },
    )
    const context = contextFor(document)
    for (let i = 0; i < 2; i++) {
      const rendered = renderResponse(planFor(document, { dynamic: true }), context)
      expect(rendered.violations, `answer ${i + 1}`).toEqual([{ path: 'body.count', message: 'must be <= 1.5' }])
    }
  })

  it('serves the same static body, and tells the same violations, every time (sampled once)', () => {
    const document = documentWithResponses(
      { '200': jsonResponse({ $ref: '#/components/schemas/Node' }) },
      { Node: unmakeable },
    )
    const context = contextFor(document)
    const plan = planFor(document)
    expect(plan.source).toEqual({ kind: 'sampled' })
    const first = renderResponse(plan, context)
    expect(first.violations?.[0]?.message).toBe('must be <= 1.5')
    expect(renderResponse(plan, context)).toEqual(first)
    // Another app (its own faker sequence, advanced here) makes the same body from the same description.
    const other = contextFor(document)
    other.faker({ type: 'string' })
    expect(renderResponse(planFor(document), other).body).toBe(first.body)
  })

  it('samples a static body from the schema’s examples, defaults and enums, meeting the schema', () => {
    const schema = {
      type: 'object',
      required: ['id', 'name', 'kind', 'code'],
      properties: {
        id: { type: 'integer', minimum: 7 },
        name: { type: 'string', default: 'Fern' },
        kind: { type: 'string', enum: ['herb', 'tree'] },
        code: { type: 'string', pattern: '^[A-Z]{3}-\\d{2}$' },
        born: { type: 'string', format: 'date' },
      },
    }
    const document = documentWithResponses({ '200': jsonResponse(schema) })
    const rendered = renderResponse(planFor(document), contextFor(document))
    expect(rendered.violations).toBeUndefined()
    const body = JSON.parse(rendered.body as string)
    expect(body).toMatchObject({ id: 7, name: 'Fern', kind: 'herb' })
    expect(body.code).toMatch(/^[A-Z]{3}-\d{2}$/)
    expect(body.born).toMatch(/^\d{4}-\d{2}-\d{2}$/)
  })

  it('tells what start-up found of a response’s made-up Location, with whatever its body breaks', () => {
    const created = {
      ...jsonResponse({ type: 'object' }, { example: {} }),
      headers: { Location: { schema: { type: 'string', pattern: '^/things/\\d+$' } } },
    }
    const document = documentWithResponses({ '201': created })
    const plan = planFor(document)
    expect((plan.response as DeclaredResponse).violations).toEqual([
      { path: 'header.location', message: 'must match pattern "^/things/\\d+$"' },
    ])
    const rendered = renderResponse(plan, contextFor(document))
    expect(rendered.headers).toEqual({ location: '/' })
    expect(rendered.violations).toEqual([{ path: 'header.location', message: 'must match pattern "^/things/\\d+$"' }])
  })

  it('leaves the headers out of renderDeclared, whose caller does not send them', () => {
    const created = {
      ...jsonResponse({ type: 'object' }, { example: {} }),
      headers: { Location: { schema: { type: 'string', pattern: '^/x$' } } },
    }
    const document = documentWithResponses({ '201': created })
    const plan = planFor(document)
    expect(renderDeclared(plan, plan.response!, contextFor(document))).not.toHaveProperty('violations')
  })

  it('finds no violation in a Location that meets its schema', () => {
    const created = {
      ...jsonResponse({ type: 'object' }, { example: {} }),
      headers: { Location: { schema: { type: 'string', example: '/things/1' } } },
    }
    expect(planFor(documentWithResponses({ '201': created })).response!.violations).toBeUndefined()
  })
})
