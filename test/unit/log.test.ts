import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { type RequestLine, formatRequestJson, formatRequestText } from '../../src/common/log.js'
import { createConsoleLogger } from '../../src/node/console-logger.js'

const line = (overrides: Partial<RequestLine> = {}): RequestLine => ({
  time: Date.UTC(2025, 0, 2, 3, 4, 5),
  method: 'POST',
  path: '/plants',
  operation: 'addPlant',
  status: 200,
  durationMs: 1.234,
  scenario: 'default',
  violations: [],
  ...overrides,
})

function capture() {
  const chunks: string[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk))
      done()
    },
  })
  return { stream, text: () => chunks.join(''), writes: () => chunks.length }
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

describe('request lines', () => {
  it('shows method, path, status, time in ms and scenario on one text line #6', () => {
    expect(formatRequestText(line())).toBe('[mock] POST /plants 200 1.2 ms scenario=default\n')
  })

  it('writes the time in tenths of a ms below 10 ms, whole ms from there (#19: without toFixed)', () => {
    const shown = (durationMs: number) => / 200 (\S+) ms /.exec(formatRequestText(line({ durationMs })))![1]
    expect([0, 0.04, 0.06, 2, 3.96, 9.94, 9.96, 10, 10.4, 10.6, 1234.5].map(shown)).toEqual([
      '0.0',
      '0.0',
      '0.1',
      '2.0',
      '4.0',
      '9.9',
      '10.0',
      '10',
      '10',
      '11',
      '1235',
    ])
  })

  it('adds the first violation of a 4xx, and the session and fault when there are #6', () => {
    const violations = [
      { path: 'body.name', message: 'must be a string' },
      { path: 'body.id', message: 'is required' },
    ]
    expect(
      formatRequestText(
        line({ status: 400, durationMs: 12.6, session: 'w1', violations, error: 'The request does not match' }),
      ),
    ).toBe('[mock] POST /plants 400 13 ms scenario=default session=w1: body.name must be a string (+1 more)\n')
    expect(formatRequestText(line({ status: 0, fault: 'reset' }))).toBe(
      '[mock] POST /plants 0 1.2 ms scenario=default fault=reset\n',
    )
  })

  it('falls back to the error message for a 4xx without violations, and shows none for a 5xx #6', () => {
    expect(formatRequestText(line({ status: 401, error: 'This operation needs a token.' }))).toMatch(
      / 401 .*: This operation needs a token\.\n$/,
    )
    expect(
      formatRequestText(line({ status: 500, error: 'The mock server failed unexpectedly; see its log.' })),
    ).not.toContain('failed')
  })

  it('names a violation answered past with its 2xx, and how many more there are (#13)', () => {
    const violations = [
      { path: 'query.limit', message: 'must be >= 1' },
      { path: 'body.id', message: 'is required' },
    ]
    expect(formatRequestText(line({ violations }))).toBe(
      '[mock] POST /plants 200 1.2 ms scenario=default: request breaks the description: query.limit must be >= 1 (+1 more)\n',
    )
  })

  it('names how an answer breaks its declaration, after a violation of the request if there is one (#13)', () => {
    const responseViolations = [{ path: 'header.location', message: 'must match pattern "^/a$"' }]
    expect(formatRequestText(line({ status: 201, responseViolations }))).toBe(
      '[mock] POST /plants 201 1.2 ms scenario=default: response breaks the description: header.location must match pattern "^/a$"\n',
    )
    expect(
      formatRequestText(
        line({
          status: 500,
          responseViolations,
          violations: [{ path: 'query.n', message: 'must be an integer' }],
          error: 'The 201 response...',
        }),
      ),
    ).toBe(
      '[mock] POST /plants 500 1.2 ms scenario=default: request breaks the description: query.n must be an integer; response breaks the description: header.location must match pattern "^/a$"\n',
    )
  })

  it('escapes control characters so that a request cannot forge a second line #6', () => {
    const text = formatRequestText(
      line({ status: 400, violations: [{ path: 'body.x', message: 'bad\n[mock] GET / 200' }] }),
    )
    expect(text.split('\n')).toHaveLength(2)
    expect(text).toContain('bad\\u000a[mock]')
  })

  it('writes the response’s violations beside the request’s in a JSON line, and neither when there are none (#13)', () => {
    const responseViolations = [{ path: 'status', message: 'is 204' }]
    expect(JSON.parse(formatRequestJson(line({ status: 204, responseViolations })))).toMatchObject({
      status: 204,
      responseViolations,
    })
    expect(JSON.parse(formatRequestJson(line()))).not.toHaveProperty('responseViolations')
  })

  it('writes one JSON object per line with every violation and no header or body #6', () => {
    const violations = [{ path: 'body.name', message: 'must be a string' }]
    const json = formatRequestJson({
      ...line({ status: 400, violations, error: 'e' }),
      headers: () => [['authorization', 'Bearer secret']],
    } as RequestLine)
    expect(json.endsWith('\n')).toBe(true)
    expect(JSON.parse(json)).toEqual({
      time: '2025-01-02T03:04:05.000Z',
      level: 'info',
      type: 'request',
      method: 'POST',
      path: '/plants',
      operation: 'addPlant',
      status: 400,
      durationMs: 1.234,
      scenario: 'default',
      error: 'e',
      violations,
    })
    expect(json).not.toContain('secret')
  })
})

describe('createConsoleLogger', () => {
  it('queues request lines and writes them in one write on the next event-loop turn #6', async () => {
    const out = capture()
    const logger = createConsoleLogger({ stdout: out.stream })
    logger.request!(line())
    logger.request!(line({ status: 201 }))
    expect(out.text()).toBe('')
    await nextTurn()
    expect(out.writes()).toBe(1)
    expect(out.text().split('\n')).toEqual([expect.stringContaining(' 200 '), expect.stringContaining(' 201 '), ''])
  })

  it('writes queued request lines before a later message, and on flush() #6', () => {
    const out = capture()
    const logger = createConsoleLogger({ stdout: out.stream })
    logger.request!(line())
    logger.info('SIGTERM: stopping')
    expect(out.text()).toBe('[mock] POST /plants 200 1.2 ms scenario=default\n[mock] SIGTERM: stopping\n')
    logger.request!(line({ status: 204 }))
    logger.flush()
    expect(out.text()).toContain(' 204 ')
  })

  it('prints every message as JSON with --log-format json, warnings and errors on stderr #6', async () => {
    const out = capture()
    const err = capture()
    const logger = createConsoleLogger({ logFormat: 'json', stdout: out.stream, stderr: err.stream })
    logger.info('listening')
    logger.warn('careful')
    logger.request!(line())
    await nextTurn()
    const lines = out
      .text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines).toEqual([
      expect.objectContaining({ level: 'info', message: 'listening' }),
      expect.objectContaining({ type: 'request', status: 200 }),
    ])
    expect(JSON.parse(err.text())).toMatchObject({ level: 'warn', message: 'careful' })
  })

  it('logs no request with quiet, but still the messages #6', async () => {
    const out = capture()
    const logger = createConsoleLogger({ quiet: true, stdout: out.stream })
    expect(logger.request).toBeUndefined()
    logger.info('listening')
    await nextTurn()
    expect(out.text()).toBe('[mock] listening\n')
  })
})
