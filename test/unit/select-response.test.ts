import { describe, expect, it } from 'vitest'
import { MockError } from '../../src/errors/index.js'
import {
  type DeclaredResponse,
  type ResponseSet,
  findResponse,
  statusOf,
} from '../../src/responses/declared-responses.js'
import type { Fixture } from '../../src/responses/fixtures.js'
import type { Preferences } from '../../src/responses/prefer.js'
import { type ResponsePlan, selectResponse } from '../../src/responses/select-response.js'
import { documentWithResponses, jsonResponse, responsesOf } from '../support/builders.js'

const error = {
  type: 'object',
  required: ['error', 'message'],
  properties: { error: { type: 'integer' }, message: { type: 'string' } },
}
const plant = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } }

/** Declared responses with no content: enough for the status rules. */
function codes(...declared: string[]): ResponseSet {
  return responsesOf(documentWithResponses(Object.fromEntries(declared.map((code) => [code, { description: code }]))))
}

const declared = (list: string[]): DeclaredResponse[] => codes(...list).declared

function select(responses: ResponseSet, prefer: Preferences = {}, dynamic = false): ResponsePlan {
  return selectResponse({ id: 'addThing', responses }, prefer, { dynamic })
}

function refusal(run: () => unknown): MockError {
  try {
    run()
  } catch (thrown) {
    if (thrown instanceof MockError) return thrown
    throw thrown
  }
  throw new Error('expected a MockError')
}

const bodyOf = (plan: ResponsePlan) =>
  plan.source.kind === 'static' ? JSON.parse(plan.source.body.json) : plan.source.kind

/** `POST /things` answering 201 (a plant, with an example), 400 (two named examples) and 4XX/default. */
function plantResponses(fixtures: Fixture[] = []): ResponseSet {
  return responsesOf(
    documentWithResponses({
      '201': jsonResponse(plant, { example: { name: 'Fern' } }),
      '400': jsonResponse(error, {
        examples: {
          'bad-name': { value: { error: 400, message: 'bad name' } },
          'duplicate-id': { value: { error: 400, message: 'duplicate id' } },
        },
      }),
      '4XX': jsonResponse(error, { examples: { gone: { value: { error: 410, message: 'gone' } } } }),
      default: jsonResponse(error, { example: { error: 500, message: 'boom' } }),
    }),
    fixtures,
  )
}

describe('findResponse', () => {
  it('prefers the exact code over its range and default', () => {
    expect(findResponse(declared(['default', '4XX', '404']), 404)?.code).toBe('404')
  })

  it('falls back to the range of the status', () => {
    expect(findResponse(declared(['default', '4XX', '400']), 404)?.code).toBe('4XX')
  })

  it('falls back to default when neither code nor range is declared', () => {
    expect(findResponse(declared(['200', '5XX', 'default']), 404)?.code).toBe('default')
  })

  it('finds nothing when no response covers the status', () => {
    expect(findResponse(declared(['200', '5XX']), 404)).toBeUndefined()
  })
})

describe('statusOf', () => {
  it('serves an exact code as itself', () => {
    expect(statusOf(declared(['201'])[0]!, 200)).toBe(201)
  })

  it('serves a range as the first status of the range', () => {
    expect(statusOf(declared(['2XX'])[0]!, 299)).toBe(200)
  })

  it('serves default with the fallback status', () => {
    expect(statusOf(declared(['default'])[0]!, 418)).toBe(418)
  })
})

describe('the success response', () => {
  it('is the lowest declared 2xx, whatever the declaration order', () => {
    expect(codes('400', '202', '201').success?.code).toBe('201')
  })

  it('is an exact 2xx rather than the 2XX range', () => {
    expect(codes('2XX', '204').success?.code).toBe('204')
  })

  it('is 2XX when no exact 2xx is declared', () => {
    expect(codes('400', '2XX', 'default').success?.code).toBe('2XX')
  })

  it('is default when no 2xx is declared', () => {
    expect(codes('400', 'default').success?.code).toBe('default')
  })

  it('is the lowest declared status when no 2xx, 2XX or default is declared, never a 1xx (#11)', () => {
    expect(codes('101', '302').success?.code).toBe('302')
    expect(codes('404', '4XX', '301').success?.code).toBe('301')
    expect(codes('5XX', '404').success?.code).toBe('404')
    expect(codes('101').success).toBeUndefined()
  })
})

describe('the status for a request that breaks the description', () => {
  it('is 422 when 422 is declared, even beside 400', () => {
    expect(codes('200', '400', '422').violationStatus).toBe(422)
  })

  it('is 400 when 400 is declared', () => {
    expect(codes('200', '400').violationStatus).toBe(400)
  })

  it('is 400 when only the 4XX range is declared', () => {
    expect(codes('200', '4XX').violationStatus).toBe(400)
  })

  it('is 422 when neither 422, 400 nor 4XX is declared', () => {
    expect(codes('200').violationStatus).toBe(422)
    expect(codes('200', 'default').violationStatus).toBe(422)
  })
})

describe('selectResponse without preferences', () => {
  it('serves the success response with its example', () => {
    const plan = select(plantResponses())
    expect(plan.status).toBe(201)
    expect(plan.response?.code).toBe('201')
    expect(bodyOf(plan)).toEqual({ name: 'Fern' })
  })

  it('serves a fixture named default before the description’s example', () => {
    const fixture: Fixture = { file: '201.json', code: '201', name: 'default', value: { name: 'Monstera' } }
    expect(bodyOf(select(plantResponses([fixture])))).toEqual({ name: 'Monstera' })
  })

  it('serves a 2XX success as 200', () => {
    expect(select(responsesOf(documentWithResponses({ '2XX': jsonResponse(plant) }))).status).toBe(200)
  })

  it('serves a default success as 200', () => {
    expect(select(responsesOf(documentWithResponses({ default: jsonResponse(plant) }))).status).toBe(200)
  })

  it('samples the static body where the success response has a schema but no example', () => {
    const plan = select(responsesOf(documentWithResponses({ '200': jsonResponse(plant) })))
    expect(plan.status).toBe(200)
    expect(plan.source).toEqual({ kind: 'sampled' })
  })

  it('generates a body where the success response has a schema but no example, when the mock runs dynamic', () => {
    const plan = select(responsesOf(documentWithResponses({ '200': jsonResponse(plant) })), {}, true)
    expect(plan.source).toEqual({ kind: 'generated' })
  })

  it('sends no body for a response that declares no content', () => {
    const plan = select(codes('204'))
    expect(plan.status).toBe(204)
    expect(plan.source).toEqual({ kind: 'empty' })
  })

  it('sends no body for content with neither schema nor example', () => {
    const plan = select(
      responsesOf(documentWithResponses({ '200': { description: 'd', content: { 'application/json': {} } } })),
    )
    expect(plan.source).toEqual({ kind: 'empty' })
  })

  it('generates every body when the mock runs dynamic', () => {
    expect(select(plantResponses(), {}, true).source).toEqual({ kind: 'generated' })
  })
})

describe('selectResponse with Prefer', () => {
  it('serves the status that code= names, with its first example', () => {
    const plan = select(plantResponses(), { code: 400 })
    expect(plan.status).toBe(400)
    expect(plan.response?.code).toBe('400')
    expect(bodyOf(plan)).toEqual({ error: 400, message: 'bad name' })
  })

  it('serves the status code= asks for when a range covers it', () => {
    const plan = select(plantResponses(), { code: 404 })
    expect(plan.response?.code).toBe('4XX')
    expect(plan.status).toBe(404)
  })

  it('serves the status code= asks for when default covers it', () => {
    const plan = select(plantResponses(), { code: 503 })
    expect(plan.response?.code).toBe('default')
    expect(plan.status).toBe(503)
  })

  it('refuses a code= that no response covers, listing the declared ones', () => {
    const refused = refusal(() =>
      select(responsesOf(documentWithResponses({ '200': jsonResponse(plant), '400': jsonResponse(error) })), {
        code: 404,
      }),
    )
    expect(refused.kind).toBe('undeclared_preference')
    // 404, as Prism answers it (#30).
    expect(refused.status).toBe(404)
    expect(refused.message).toContain('code=404')
    expect(refused.message).toContain('200, 400')
  })

  it('refuses a code= that is not a status with the violation status', () => {
    const refused = refusal(() =>
      select(responsesOf(documentWithResponses({ '200': jsonResponse(plant), '422': jsonResponse(error) })), {
        code: Number.NaN,
      }),
    )
    expect(refused.status).toBe(422)
    expect(refused.message).toContain('HTTP status')
  })

  it('names the query control the client wrote when code= or example= came from the query (#13)', () => {
    const responses = responsesOf(documentWithResponses({ '200': jsonResponse(plant), '400': jsonResponse(error) }))
    expect(refusal(() => select(responses, { code: 404, from: 'query' })).message).toMatch(
      /^__code=404 names a status that addThing does not declare/,
    )
    expect(refusal(() => select(responses, { code: Number.NaN, from: 'query' })).message).toBe(
      '__code= must be an HTTP status such as 400.',
    )
    expect(refusal(() => select(plantResponses(), { example: 'nope', from: 'query' })).message).toMatch(
      /^__example=nope matches no fixture or example of addThing/,
    )
    expect(refusal(() => select(responses, { code: 404 })).message).toMatch(/^Prefer: code=404 /)
  })

  it('finds a named example in any response when no code is given', () => {
    const plan = select(plantResponses(), { example: 'duplicate-id' })
    expect(plan.status).toBe(400)
    expect(bodyOf(plan)).toEqual({ error: 400, message: 'duplicate id' })
  })

  it('looks for a named example only in the response code= chose', () => {
    const refused = refusal(() => select(plantResponses(), { code: 201, example: 'duplicate-id' }))
    expect(refused.kind).toBe('undeclared_preference')
    expect(refused.message).toContain('for that status')
  })

  it('serves a named example of the chosen status', () => {
    expect(bodyOf(select(plantResponses(), { code: 400, example: 'duplicate-id' }))).toEqual({
      error: 400,
      message: 'duplicate id',
    })
  })

  it('serves a named example of a range with the status code= asks for', () => {
    const plan = select(plantResponses(), { code: 410, example: 'gone' })
    expect(plan.status).toBe(410)
    expect(bodyOf(plan)).toEqual({ error: 410, message: 'gone' })
  })

  it('serves a named example of a range as the first status of the range when no code is given', () => {
    expect(select(plantResponses(), { example: 'gone' }).status).toBe(400)
  })

  it('refuses an unknown example name, listing the available ones', () => {
    const refused = refusal(() => select(plantResponses(), { example: 'nope' }))
    expect(refused.status).toBe(404)
    expect(refused.message).toContain('bad-name (400)')
    expect(refused.message).toContain('duplicate-id (400)')
  })

  it('generates a body when dynamic=true', () => {
    expect(select(plantResponses(), { dynamic: true }).source).toEqual({ kind: 'generated' })
  })

  it('serves the example when dynamic=false although the mock runs dynamic', () => {
    expect(bodyOf(select(plantResponses(), { dynamic: false }, true))).toEqual({ name: 'Fern' })
  })

  it('serves a named example even when the mock runs dynamic', () => {
    expect(bodyOf(select(plantResponses(), { example: 'bad-name' }, true))).toEqual({ error: 400, message: 'bad name' })
  })
})
