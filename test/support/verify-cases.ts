/**
 * Verification (#29 §2) as one suite that every transport runs: `mock.verify()` and its siblings on
 * the handle, and `POST /__mock/verify`, in process (`test/in-process/verify.test.ts`) and over a
 * socket (`test/socket/verify.test.ts`). Every admin answer is checked against `admin-openapi.yaml`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AppOptions, type MockHandle, VerificationError } from '../../src/index.js'
import { type AdminOracle, createAdminOracle } from './admin-oracle.js'
import type { AdminTarget, StartTarget } from './admin-cases.js'
import { expectErrorBody } from './cases.js'
import { entryId } from './store-under-test.js'

const FERN = { id: 1, name: 'Fern' }
const IVY = { id: 2, name: 'Ivy' }

/** The error a check threw, for its message and failures. */
function thrown(check: () => void): VerificationError {
  try {
    check()
  } catch (error) {
    return error as VerificationError
  }
  throw new Error('the check passed')
}

export function describeVerification(transport: string, start: StartTarget): void {
  let oracle: AdminOracle
  const started: AdminTarget[] = []
  beforeAll(async () => {
    oracle = await createAdminOracle()
  })
  afterAll(async () => {
    await Promise.all(started.map((target) => target.close()))
  })

  async function mockWith(options: AppOptions = {}): Promise<AdminTarget> {
    const target = await start(options)
    started.push(target)
    return target
  }

  /** POST /plants with the plant; `prefer` forces a status, `session` names one. */
  async function addPlant(
    target: AdminTarget,
    plant: unknown,
    { prefer, session }: { prefer?: string; session?: string } = {},
  ) {
    const headers: Record<string, string> = { authorization: 'Bearer t', 'content-type': 'application/json' }
    if (prefer) headers.prefer = prefer
    if (session) headers['x-mock-session'] = session
    const response = await target.send('POST', '/plants', { headers, body: JSON.stringify(plant) })
    await response.arrayBuffer()
    return response.status
  }

  /** POST /__mock/verify; the answer must conform to admin-openapi.yaml. */
  async function verify(target: AdminTarget, body: unknown, headers: Record<string, string> = {}) {
    const response = await target.send('POST', '/__mock/verify', {
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })
    const text = await response.text()
    const exchange = {
      method: 'POST',
      path: '/__mock/verify',
      status: response.status,
      headers: response.headers,
      text,
    }
    expect(oracle.problems(exchange), `POST /__mock/verify → ${response.status} ${text.slice(0, 300)}`).toEqual([])
    return { status: response.status, json: JSON.parse(text) }
  }

  /** Fern answered 200, Ivy forced to 400, a body that breaks NewPlant (400), a path that matches nothing (404). */
  async function fourRequests(target: AdminTarget): Promise<MockHandle> {
    expect(await addPlant(target, FERN)).toBe(200)
    expect(await addPlant(target, IVY, { prefer: 'code=400' })).toBe(400)
    expect(await addPlant(target, { id: 'x', name: 5 })).toBe(400)
    const missing = await target.send('GET', '/plantz')
    await missing.arrayBuffer()
    expect(missing.status).toBe(404)
    return target.mock
  }

  describe(`verification ${transport}`, () => {
    describe('mock.verify()', () => {
      it('passes when the count, the status and the conditions hold, and the default is at least once', async () => {
        const mock = await fourRequests(await mockWith())
        expect(() => mock.verify({ operation: 'addPlant' })).not.toThrow()
        expect(() => mock.verify({ operation: 'addPlant', times: 3 })).not.toThrow()
        expect(() => mock.verify({ operation: 'addPlant', status: 200, times: 1 })).not.toThrow()
        expect(() => mock.verify({ operation: 'addPlant', status: '4xx', atLeast: 2, atMost: 2 })).not.toThrow()
        expect(() =>
          mock.verify({ operation: 'POST /plants', status: 400, body: { '$.name': 'Ivy' }, times: 1 }),
        ).not.toThrow()
        expect(() =>
          mock.verify({ operation: 'addPlant', when: { body: { '$.id': { gte: 1 } } }, times: 2 }),
        ).not.toThrow()
        expect(() => mock.verify({ operation: 'addPlant', status: 201, times: 0 })).not.toThrow()
      })

      it('throws an AssertionError whose message lists the near misses: another status, or the condition that failed and the value sent', async () => {
        const mock = await fourRequests(await mockWith())
        const check = () => mock.verify({ operation: 'addPlant', status: 400, body: { '$.name': 'Fern' }, times: 1 })
        expect(check).toThrow(/Near misses/)
        const error = thrown(check)
        expect(error).toBeInstanceOf(VerificationError)
        expect(error.name).toBe('AssertionError')
        expect(error.message).toContain(
          'Expected exactly 1 request to addPlant answered 400 where body $.name equals "Fern"; found 0.',
        )
        expect(error.message).toContain('POST /plants → 200 (addPlant): status 400 failed, was 200')
        expect(error.message).toContain('POST /plants → 400 (addPlant): body $.name equals "Fern" failed, was "Ivy"')
        expect(error.message).toContain('body $.name equals "Fern" failed, was 5')
        expect(error.failures).toMatchObject([
          {
            kind: 'requests',
            expected: 'exactly 1 request',
            found: 0,
            nearMisses: [
              { status: 200, mismatches: [{ condition: 'status 400', actual: '200' }] },
              { status: 400, mismatches: [{ condition: 'body $.name equals "Fern"', actual: '"Ivy"' }] },
              { status: 400, mismatches: [{ condition: 'body $.name equals "Fern"', actual: '5' }] },
            ],
          },
        ])
        expect(error.dropped).toBe(0)
      })

      it('lists the requests that matched when there are more than expected', async () => {
        const mock = await fourRequests(await mockWith())
        expect(() => mock.verify({ operation: 'addPlant', status: '4xx', atMost: 1 })).toThrow(
          new RegExp(
            `Expected at most 1 request to addPlant answered 4xx; found 2\\.\\nMatched:\\n {2}- #${entryId(2)} POST /plants → 400`,
          ),
        )
      })

      it('names the other requests as near misses when none reached the operation', async () => {
        const target = await mockWith()
        const missing = await target.send('GET', '/plantz')
        await missing.arrayBuffer()
        expect(() => target.mock.verify({ operation: 'addPlant' })).toThrow(
          new RegExp(
            `Near misses \\(closest first\\):\\n {2}- #${entryId(1)} GET /plantz → 404 \\(no operation\\): operation addPlant failed, was \\(none: it matched no operation\\)`,
          ),
        )
      })

      it('says there is no near miss when the journal is empty', async () => {
        const target = await mockWith()
        expect(() => target.mock.verify({ operation: 'addPlant' })).toThrow(
          /No near miss: the journal holds no request\./,
        )
      })

      it('counts only the requests of the session it names', async () => {
        const target = await mockWith()
        await addPlant(target, FERN, { session: 'worker-1' })
        await addPlant(target, IVY, { session: 'worker-2' })
        await addPlant(target, IVY, { session: 'worker-2' })
        expect(() => target.mock.verify({ operation: 'addPlant', session: 'worker-1', times: 1 })).not.toThrow()
        expect(() =>
          target.mock.verify({ operation: 'addPlant', session: 'worker-2', body: { '$.name': 'Ivy' }, times: 2 }),
        ).not.toThrow()
        expect(() =>
          target.mock.verify({ operation: 'addPlant', session: 'worker-1', body: { '$.name': 'Ivy' } }),
        ).toThrow(
          new RegExp(
            `in session "worker-1"; found 0\\.\\nNear misses[^\\n]*\\n {2}- #${entryId(1)} POST /plants → 200 \\(addPlant\\) \\[session worker-1\\]: body \\$\\.name equals "Ivy" failed, was "Fern"`,
          ),
        )
      })

      it('says when the journal had let go of older requests, which it could not see', async () => {
        const target = await mockWith({ journalSize: 2 })
        await fourRequests(target)
        const error = thrown(() => target.mock.verify({ operation: 'addPlant', times: 3 }))
        expect(error.dropped).toBe(2)
        expect(error.message).toContain('the journal had let go of 2 older requests')
      })

      it('throws a MockError (400) naming what is written wrong: an unknown operation, field, status or condition', async () => {
        const { mock } = await mockWith()
        const mistakes: Array<[unknown, RegExp]> = [
          [{ operation: 'nope' }, /"nope" names no operation \(known: addPlant\)/],
          [{ operation: 'addPlant', staus: 400 }, /unknown field "staus"/],
          [{ operation: 'addPlant', status: 'often' }, /"status" is an HTTP status/],
          [{ operation: 'addPlant', times: -1 }, /"times" is a whole number from 0/],
          [{ operation: 'addPlant', times: 1, atLeast: 1 }, /"times" is exact/],
          [{ operation: 'addPlant', atLeast: 3, atMost: 1 }, /"atLeast" \(3\) is more than "atMost" \(1\)/],
          [{ operation: 'addPlant', body: { '$.name': { like: 'F' } } }, /"like" is no operator/],
          [
            { operation: 'addPlant', body: { '$.x': 1 }, when: { body: { '$.y': 1 } } },
            /"body" is given both in "when" and beside it/,
          ],
          [{ operation: 'addPlant', when: { cookies: { sid: 'a' } } }, /cannot read cookies/],
        ]
        for (const [check, message] of mistakes) {
          expect(() => mock.verify(check as never), JSON.stringify(check)).toThrow(message)
          expect(() => mock.verify(check as never)).toThrow(expect.objectContaining({ status: 400 }))
        }
      })
    })

    describe('verifyNoUnmatched, verifyNoViolations, verifyAllStubsUsed', () => {
      it('pass on a journal of valid, matched requests and used stubs', async () => {
        const target = await mockWith()
        target.mock.stub({ operation: 'addPlant', when: { body: { '$.name': 'Ivy' } }, status: 400 })
        await addPlant(target, FERN)
        await addPlant(target, IVY)
        expect(() => target.mock.verifyNoUnmatched()).not.toThrow()
        expect(() => target.mock.verifyNoViolations()).not.toThrow()
        expect(() => target.mock.verifyAllStubsUsed()).not.toThrow()
      })

      it('fail listing the request that matched no operation, those that broke the description with their violations, the stub never used', async () => {
        const target = await mockWith()
        const mock = await fourRequests(target)
        mock.stub({ operation: 'addPlant', when: { body: { '$.name': 'Rose' } }, status: 400 })
        expect(() => mock.verifyNoUnmatched()).toThrow(
          new RegExp(
            `^Expected no request that matched no operation; found 1\\.\\nFound:\\n {2}- #${entryId(4)} GET /plantz → 404 \\(no operation\\): No operation`,
          ),
        )
        const invalid = thrown(() => mock.verifyNoViolations())
        expect(invalid.message).toMatch(/^Expected no request that broke the description; found 2\./)
        expect(invalid.message).toContain(`#${entryId(3)} POST /plants → 400 (addPlant): body.name must be a string`)
        expect(invalid.failures).toMatchObject([
          { kind: 'noViolations', found: 2, requests: [{ id: entryId(3) }, { id: entryId(4) }] },
        ])
        expect(() => mock.verifyAllStubsUsed()).toThrow(/stub 1 \(addPlant\) never answered/)
      })

      it('look at one session when asked: its requests, and the stubs it could use', async () => {
        const target = await mockWith()
        target.mock.stub({ operation: 'addPlant', status: 400, session: 'a' })
        await addPlant(target, { id: 'x' }, { session: 'b' })
        expect(await addPlant(target, FERN, { session: 'a' })).toBe(400)
        expect(() => target.mock.verifyNoViolations({ session: 'a' })).not.toThrow()
        expect(() => target.mock.verifyNoViolations({ session: 'b' })).toThrow(/in session "b"; found 1/)
        expect(() => target.mock.verifyAllStubsUsed({ session: 'a' })).not.toThrow()
        expect(() => target.mock.verifyAllStubsUsed({ session: 'b' })).not.toThrow()
        target.mock.stub({ operation: 'addPlant', status: 400 })
        expect(() => target.mock.verifyAllStubsUsed({ session: 'a' })).toThrow(/stub 2 \(addPlant\) never answered/)
      })
    })

    describe('POST /__mock/verify', () => {
      it('answers 200 with ok when every check holds', async () => {
        const target = await mockWith()
        await addPlant(target, FERN)
        const answer = await verify(target, {
          checks: [
            { operation: 'addPlant', status: 200, times: 1 },
            { noUnmatched: true },
            { noViolations: true },
            { allStubsUsed: true },
          ],
        })
        expect(answer).toEqual({ status: 200, json: { ok: true, checked: 4, dropped: 0 } })
      })

      it('answers 409 with each failure: the check, what was expected, what was found, the near misses, and the message', async () => {
        const target = await mockWith()
        await fourRequests(target)
        const answer = await verify(target, {
          checks: [
            { operation: 'addPlant', status: 400, body: { '$.name': 'Fern' } },
            { noUnmatched: true },
            { noViolations: true },
          ],
        })
        expect(answer.status).toBe(409)
        expect(answer.json).toMatchObject({
          ok: false,
          checked: 3,
          dropped: 0,
          failures: [
            {
              kind: 'requests',
              check: { operation: 'addPlant', status: 400, body: { '$.name': 'Fern' } },
              title: 'to addPlant answered 400 where body $.name equals "Fern"',
              expected: 'at least 1 request',
              found: 0,
              nearMisses: [
                {
                  id: entryId(1),
                  method: 'POST',
                  path: '/plants',
                  operation: 'addPlant',
                  status: 200,
                  mismatches: [{ condition: 'status 400', actual: '200' }],
                },
                { id: entryId(2), mismatches: [{ condition: 'body $.name equals "Fern"', actual: '"Ivy"' }] },
                { id: entryId(3) },
              ],
            },
            {
              kind: 'noUnmatched',
              expected: 'no request',
              found: 1,
              requests: [{ id: entryId(4), path: '/plantz', status: 404 }],
            },
            { kind: 'noViolations', found: 2 },
          ],
        })
        expect(answer.json.message).toMatch(
          /^Verification failed: 3 of 3 checks\.\n1\. Expected at least 1 request to addPlant/,
        )
        expect(answer.json.message).toContain('Near misses')
      })

      it('reads the session from the body, else from X-Mock-Session', async () => {
        const target = await mockWith()
        await addPlant(target, { id: 'x' }, { session: 'b' })
        await addPlant(target, FERN, { session: 'a' })
        expect((await verify(target, { checks: [{ noViolations: true }], session: 'a' })).status).toBe(200)
        expect((await verify(target, { checks: [{ noViolations: true }] }, { 'x-mock-session': 'a' })).status).toBe(200)
        const failed = await verify(
          target,
          { checks: [{ noViolations: true }], session: 'b' },
          { 'x-mock-session': 'a' },
        )
        expect(failed.status).toBe(409)
        expect(failed.json.failures[0].title).toBe('that broke the description in session "b"')
      })

      it('answers 400 naming the check written wrong', async () => {
        const target = await mockWith()
        const bad: Array<[unknown, string]> = [
          ['not json', 'The body must be a JSON object.'],
          [{ checks: [] }, 'The verification is not taken: "checks": a list of 1 to 100 checks'],
          [
            { check: [{ noUnmatched: true }] },
            'The verification is not taken: the body: takes "checks" and "session", not check',
          ],
          [
            { checks: [{ noUnmatched: true }, { operation: 'nope' }] },
            'The verification is not taken: checks[1]: "nope" names no operation (known: addPlant)',
          ],
          [
            { checks: [{ noUnmatched: 'yes' }] },
            'The verification is not taken: checks[0]: {"noUnmatched": true} takes nothing else (given: noUnmatched)',
          ],
          [
            { checks: [{ operation: 'addPlant', session: 'a' }] },
            'The verification is not taken: checks[0]: the "session" goes beside "checks", for all of them',
          ],
          [
            { checks: [{ operation: 'addPlant', body: { '$.id': { gt: 'one' } } }] },
            'The verification is not taken: checks[0] (addPlant): when.body["$.id"].gt: expected a number.',
          ],
        ]
        for (const [body, message] of bad) {
          const answer = await verify(target, body)
          expect(answer.status, JSON.stringify(body)).toBe(400)
          expectErrorBody(answer.json, 400)
          expect(answer.json.message).toContain(message)
        }
      })

      it('needs the admin token when one is set', async () => {
        const target = await mockWith({ adminToken: 'admin-s3cret' })
        const body = { checks: [{ noUnmatched: true }] }
        expect((await verify(target, body)).status).toBe(401)
        expect((await verify(target, body, { authorization: 'Bearer admin-s3cret' })).status).toBe(200)
      })
    })
  })
}
