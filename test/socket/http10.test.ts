import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MockServer, startMockServer } from '../../src/index.js'
import { connect, statusOf, within } from '../support/raw-socket.js'
import { silentLogger } from '../../src/common/log.js'

/** HTTP/1.0 does not require Host; HTTP/1.1 does (#12). */
describe('requests without Host', () => {
  let mock: MockServer
  beforeAll(async () => {
    mock = await startMockServer({ port: 0, logger: silentLogger })
  })
  afterAll(() => mock.close())

  it('answers an HTTP/1.0 request without Host, as addressed to the mock', async () => {
    const connection = await connect(mock.port)
    connection.socket.write(
      'POST /plants HTTP/1.0\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nContent-Length: 22\r\n\r\n{"id":1,"name":"Fern"}',
    )
    await within(5000, 'the answer and the close', connection.closed)
    expect(statusOf(connection.received())).toBe(200)
    expect(connection.received()).toContain('{"name":"Fern"}')
  })

  it('still refuses an HTTP/1.1 request without Host with 400, as HTTP/1.1 requires', async () => {
    const connection = await connect(mock.port)
    connection.socket.write('GET /__mock/health HTTP/1.1\r\n\r\n')
    await within(5000, 'the answer and the close', connection.closed)
    expect(statusOf(connection.received())).toBe(400)
  })
})
