// Error answers from the description (#30 §1) through app.request(); the same table runs beside Prism
// over a socket in test/socket/prism-error-answers.test.ts.
import { beforeAll, describe, it } from 'vitest'
import { type MockApp, createApp } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'
import { ERROR_ANSWERS_SPEC, errorAnswerCases, expectErrorAnswer } from '../support/error-answer-cases.js'

let app: MockApp
beforeAll(async () => {
  app = await createApp({ spec: ERROR_ANSWERS_SPEC, logger: silentLogger })
})

describe('error answers from the description, in process (#30)', () => {
  it.each(errorAnswerCases.map((c) => [c.name, c] as const))('%s', async (_name, { request, mock }) => {
    const response = await app.request(request.path, {
      method: request.method ?? 'GET',
      headers: request.headers,
      body: request.body,
    })
    expectErrorAnswer(mock, { status: response.status, headers: response.headers, text: await response.text() })
  })
})
