import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/index.js'

/** test/descriptions/parameter-styles.yaml through the whole pipeline (#7). */
const spec = fileURLToPath(new URL('../descriptions/parameter-styles.yaml', import.meta.url))

type App = Awaited<ReturnType<typeof createApp>>

describe('parameter styles through the pipeline (#7)', () => {
  let app: App
  beforeAll(async () => {
    app = await createApp({ spec })
  })

  const messageOf = async (res: Response) => ((await res.json()) as { message: string }).message

  it('reads a label array and a matrix object from the path', async () => {
    const res = await app.request('/label/.1.2.3/matrix/;x=1;y=2')
    expect(res.status).toBe(204)
  })

  it('names a matrix object property that breaks its schema after coercion', async () => {
    const res = await app.request('/label/.1/matrix/;x=one')
    expect(res.status).toBe(422)
    expect(await messageOf(res)).toContain('path.point.x must be an integer')
  })

  it('reads a deepObject, a pipe-delimited array, a header object and a cookie object together', async () => {
    const res = await app.request('/search?page=1&filter[x]=1&filter[y]=2&sizes=1|2', {
      headers: { 'x-point': 'x=3,y=4', cookie: 'prefs=x,5,y,6' },
    })
    expect(res.status).toBe(204)
  })

  it('reports every parameter violation of every location in one response', async () => {
    const res = await app.request('/search?page=0&filter[z]=1&sizes=1|b', {
      headers: { 'x-point': 'y=4', cookie: 'prefs=x' },
    })
    expect(res.status).toBe(400)
    const message = await messageOf(res)
    for (const expected of [
      'query.page must be >= 1',
      'query.filter.z is not declared by the schema',
      'query.filter.x is required',
      'query.sizes[1] must be an integer',
      'header["x-point"].x is required',
      'cookie.prefs must be a list of name,value pairs',
    ])
      expect(message).toContain(expected)
  })

  it('refuses a request without a required query parameter', async () => {
    const res = await app.request('/search')
    expect(res.status).toBe(400)
    expect(await messageOf(res)).toContain('query.page is required')
  })

  it('accepts an empty value only for a parameter that sets allowEmptyValue', async () => {
    expect((await app.request('/search?page=1&cursor=')).status).toBe(204)
    const res = await app.request('/search?page=')
    expect(res.status).toBe(400)
    expect(await messageOf(res)).toContain('query.page must not be empty')
  })

  it('still accepts and validates a deprecated parameter', async () => {
    expect((await app.request('/search?page=1&legacy=true')).status).toBe(204)
    expect((await app.request('/search?page=1&legacy=maybe')).status).toBe(400)
  })

  it('reads a + as a plus sign in a parameter that sets allowReserved, and as a space in one that does not', async () => {
    expect((await app.request('/search?page=1&expr=1+2')).status).toBe(204)
    const res = await app.request('/search?page=1&sum=1+2')
    expect(res.status).toBe(400)
    expect(await messageOf(res)).toContain('query.sum must match pattern')
  })
})
