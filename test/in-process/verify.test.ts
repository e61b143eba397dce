/**
 * Verification (#29 §2) through `createApp().request()`: the shared suite (`test/support/verify-cases.ts`),
 * then the conditions that read the query, the headers and the path parameters of a journaled request.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { createApp, entryId } from '../support/store-under-test.js'
import { describeVerification } from '../support/verify-cases.js'
import { rulesApp, send } from '../support/rule-app.js'
import { removeTempDirs } from '../support/temp-dirs.js'

describeVerification('through app.request()', async (options = {}) => {
  const app = await createApp(options)
  return {
    send: async (method, path, init = {}) => app.request(path, { method, headers: init.headers, body: init.body }),
    mock: app.mock,
    close: async () => {},
  }
})

describe('verification, in process only', () => {
  afterAll(removeTempDirs)

  it('works with expect, no custom matcher: a pass does not throw, a failure throws a message to match', async () => {
    const app = await createApp()
    await app.request('/plants', {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: JSON.stringify({ id: 1, name: 'Fern' }),
    })
    app.mock.verify({ operation: 'addPlant', status: 200, times: 1, body: { '$.name': 'Fern' } })
    expect(() => app.mock.verifyNoViolations()).not.toThrow()
    expect(() => app.mock.verify({ operation: 'addPlant', status: 400 })).toThrow(/Near misses/)
  })

  it("the README's vitest example, with a stand-in for the client under test", async () => {
    const app = await createApp()
    const addPlantFromTheUi = async (target: typeof app) => {
      await target.request('/plants', {
        method: 'POST',
        headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
        body: JSON.stringify({ id: 1, name: 'Fern' }),
      })
    }
    await addPlantFromTheUi(app) // the client under test, against app.request or a startMockServer URL
    app.mock.verify({ operation: 'addPlant', status: 200, times: 1, body: { '$.name': 'Fern' } })
    expect(() => app.mock.verifyNoViolations()).not.toThrow()
    expect(() => app.mock.verifyNoUnmatched()).not.toThrow()
  })

  it('reads the query, the headers and the path parameters as a stub does, and names the one that failed', async () => {
    const app = await rulesApp('')
    await send(app, { path: '/items/a%20b?view=full&limit=5', headers: { 'x-trace': 'abc' } })
    await send(app, { path: '/items/c?view=short' })
    const { mock } = app
    expect(() =>
      mock.verify({ operation: 'getItem', params: { itemId: 'a b' }, query: { view: 'full' }, times: 1 }),
    ).not.toThrow()
    expect(() =>
      mock.verify({ operation: 'getItem', query: { limit: { gte: 5 } }, headers: { 'X-Trace': 'abc' }, times: 1 }),
    ).not.toThrow()
    expect(() => mock.verify({ operation: 'getItem', params: { itemId: 'c' }, query: { view: 'full' } })).toThrow(
      new RegExp(
        `#${entryId(1)} GET /items/a%20b\\?view=full&limit=5 → 200 \\(getItem\\): params itemId equals "c" failed, was "a b"\\n {2}- #${entryId(2)} GET /items/c\\?view=short → 200 \\(getItem\\): query view equals "full" failed, was "short"`,
      ),
    )
  })

  it('says how many more conditions failed than the one it names', async () => {
    const app = await rulesApp('')
    await send(app, { path: '/items/c?view=short' })
    expect(() => app.mock.verify({ operation: 'getItem', query: { view: 'full', limit: 1 } })).toThrow(
      /query view equals "full" \(and 1 more condition\) failed, was "short"/,
    )
  })

  it('reads credential headers as the journal lists them: redacted, so no secret reaches a failure message', async () => {
    const app = await createApp()
    await app.request('/plants', {
      method: 'POST',
      headers: { authorization: 'Bearer very-secret', 'content-type': 'application/json' },
      body: JSON.stringify({ id: 1, name: 'Fern' }),
    })
    expect(() => app.mock.verify({ operation: 'addPlant', headers: { authorization: { exists: true } } })).not.toThrow()
    const check = () => app.mock.verify({ operation: 'addPlant', headers: { authorization: 'Bearer x' } })
    expect(check).toThrow(/headers authorization equals "Bearer x" failed, was "\[redacted\]"/)
    expect(check).not.toThrow(/very-secret/)
  })
})
