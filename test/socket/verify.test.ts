/** Verification (#29 §2) over a real socket (port 0) with global fetch: the shared suite (`test/support/verify-cases.ts`). */
import { startMockServer } from '../../src/index.js'
import { silentLogger } from '../../src/common/log.js'
import { describeVerification } from '../support/verify-cases.js'

describeVerification('over a socket', async (options = {}) => {
  const server = await startMockServer({ port: 0, logger: silentLogger, ...options })
  return {
    send: (method, path, init = {}) => fetch(server.url + path, { method, headers: init.headers, body: init.body }),
    mock: server,
    close: () => server.close(),
  }
})
