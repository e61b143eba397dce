import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'

/**
 * The engine is not tied to the Plant Store: the same pipeline serves test/descriptions/library.yaml,
 * an OpenAPI 3.0.3 description with path and query parameters, an API key, a 201, a 204 and a 422.
 */
const librarySpec = fileURLToPath(new URL('../descriptions/library.yaml', import.meta.url))

type App = Awaited<ReturnType<typeof createApp>>

/** The parsed JSON body; `any`, since each test states the shape it expects. */
const jsonOf = (res: Response): Promise<any> => res.json()

const key = { 'x-library-key': 'any-key' }
const json = { ...key, 'content-type': 'application/json' }

/** Checks a value against the Book schema of library.yaml, written out here rather than asked of the engine. */
function expectBook(value: any): void {
  expect(Object.keys(value).every((k) => ['id', 'title', 'subtitle', 'rating'].includes(k))).toBe(true)
  expect(Number.isInteger(value.id) && value.id >= 1).toBe(true)
  expect(typeof value.title === 'string' && value.title.length >= 1).toBe(true)
  expect(value.subtitle === null || typeof value.subtitle === 'string').toBe(true)
  if ('rating' in value) expect(typeof value.rating === 'number' && value.rating > 0 && value.rating <= 5).toBe(true)
}

describe('a second description (library.yaml, OpenAPI 3.0.3)', () => {
  let app: App
  beforeAll(async () => {
    app = await createApp({ spec: librarySpec, seed: 7 })
  })

  describe('GET /books/{bookId}: path parameter', () => {
    it('coerces a numeric path parameter and answers 200 with a generated body', async () => {
      const res = await app.request('/books/42', { headers: key })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('application/json')
      expectBook(await jsonOf(res))
    })

    it('rejects a non-integer path parameter with a violation naming path.bookId', async () => {
      const res = await app.request('/books/abc', { headers: key })
      expect(res.status).toBe(400)
      const body = await jsonOf(res)
      expect(body.error).toBe(400)
      expect(body.message).toContain('path.bookId must be an integer')
    })

    it('applies a 3.0 boolean exclusiveMinimum to the path parameter, so 0 is refused', async () => {
      const res = await app.request('/books/0', { headers: key })
      expect(res.status).toBe(400)
      expect((await jsonOf(res)).message).toContain('path.bookId must be > 0')
    })

    it('accepts the smallest id above the exclusive minimum', async () => {
      const res = await app.request('/books/1', { headers: key })
      expect(res.status).toBe(200)
    })

    it('generates a body that validates against the schema for every seed tried', async () => {
      for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
        const seeded = await createApp({ spec: librarySpec, seed })
        const res = await seeded.request('/books/5', { headers: key })
        expect(res.status).toBe(200)
        expectBook(await jsonOf(res))
      }
    })
  })

  describe('GET /books: query parameters and security: []', () => {
    it('serves the operation without credentials, since it declares security: []', async () => {
      const res = await app.request('/books')
      expect(res.status).toBe(200)
      expect(res.headers.get('www-authenticate')).toBeNull()
    })

    it('serves the media-type example exactly as written, nulls included', async () => {
      const res = await app.request('/books')
      expect(res.headers.get('content-type')).toBe('application/json')
      expect(await jsonOf(res)).toEqual([
        { id: 7, title: 'The Left Hand of Darkness', subtitle: null, rating: 4.5 },
        { id: 8, title: 'Piranesi', subtitle: 'A Novel' },
      ])
    })

    it('accepts a limit inside 1..100 and a repeated array parameter', async () => {
      const res = await app.request('/books?limit=100&tags=sci-fi&tags=classic')
      expect(res.status).toBe(200)
    })

    it('rejects limit=0 with a violation naming query.limit, as the declared 400', async () => {
      const res = await app.request('/books?limit=0')
      expect(res.status).toBe(400)
      const body = await jsonOf(res)
      expect(body).toEqual({ error: 400, message: expect.stringContaining('query.limit must be >= 1') })
    })

    it('rejects limit=101 above the maximum', async () => {
      const res = await app.request('/books?limit=101')
      expect(res.status).toBe(400)
      expect((await jsonOf(res)).message).toContain('query.limit must be <= 100')
    })

    it('rejects a limit that is not an integer', async () => {
      const res = await app.request('/books?limit=ten')
      expect(res.status).toBe(400)
      expect((await jsonOf(res)).message).toContain('query.limit must be an integer')
    })
  })

  describe('POST /books: 201, 422 and nullable', () => {
    it('answers a valid request with the declared 201, not 200', async () => {
      const res = await app.request('/books', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ title: 'Kindred', subtitle: 'A Novel', rating: 5 }),
      })
      expect(res.status).toBe(201)
      expect(res.headers.get('content-type')).toBe('application/json')
      expectBook(await jsonOf(res))
    })

    it('accepts null for a field declared nullable: true', async () => {
      const res = await app.request('/books', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ title: 'Kindred', subtitle: null }),
      })
      expect(res.status).toBe(201)
    })

    it('still refuses null for a field that is not nullable', async () => {
      const res = await app.request('/books', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ title: null, subtitle: null }),
      })
      expect(res.status).toBe(422)
      expect((await jsonOf(res)).message).toContain('body.title must be a string')
    })

    it('uses the declared 422 as the status of a request that breaks the description', async () => {
      const res = await app.request('/books', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ subtitle: null }),
      })
      expect(res.status).toBe(422)
      expect(await jsonOf(res)).toEqual({ error: 422, message: expect.stringContaining('body.title is required') })
    })

    it('treats a 3.0 boolean exclusiveMinimum in the body as exclusive, so rating 0 is refused', async () => {
      const res = await app.request('/books', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ title: 'Kindred', subtitle: null, rating: 0 }),
      })
      expect(res.status).toBe(422)
      expect((await jsonOf(res)).message).toContain('body.rating must be > 0')
    })

    it('requires the API key header before it looks at the body', async () => {
      const res = await app.request('/books', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{',
      })
      expect(res.status).toBe(401)
    })
  })

  describe('DELETE /books/{bookId}: 204 and the apiKey header', () => {
    it('answers 204 with no body and no JSON content type', async () => {
      const res = await app.request('/books/3', { method: 'DELETE', headers: key })
      expect(res.status).toBe(204)
      expect(res.headers.get('content-type')).toBeNull()
      expect(await res.text()).toBe('')
    })

    it('refuses a request without the API key header with 401 and an ApiKey challenge naming the header', async () => {
      const res = await app.request('/books/3', { method: 'DELETE' })
      expect(res.status).toBe(401)
      expect(res.headers.get('www-authenticate')).toBe(
        'ApiKey realm="plant-store-mock", in="header", name="X-Library-Key"',
      )
      expect((await jsonOf(res)).message).toContain('X-Library-Key')
    })

    it('does not take a bearer token in place of the API key', async () => {
      const res = await app.request('/books/3', { method: 'DELETE', headers: { authorization: 'Bearer any-key' } })
      expect(res.status).toBe(401)
    })

    it('accepts only a configured key when tokens are given', async () => {
      const strict = await createApp({ spec: librarySpec, tokens: ['shelf-key'] })
      const wrong = await strict.request('/books/3', { method: 'DELETE', headers: { 'x-library-key': 'other' } })
      const right = await strict.request('/books/3', { method: 'DELETE', headers: { 'x-library-key': 'shelf-key' } })
      expect(wrong.status).toBe(401)
      expect(right.status).toBe(204)
    })
  })

  describe('routing', () => {
    it('answers 404 for /plants, which this description does not declare', async () => {
      const res = await app.request('/plants', { method: 'POST', headers: json, body: '{"id":1,"name":"Fern"}' })
      expect(res.status).toBe(404)
      expect((await jsonOf(res)).message).toContain('POST /plants')
    })

    it('answers 405 with an Allow header for a method the path does not declare', async () => {
      const res = await app.request('/books/3', { method: 'PUT', headers: key })
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe('GET, DELETE')
    })
  })
})
