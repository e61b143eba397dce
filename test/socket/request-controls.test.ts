/**
 * Request controls and reported violations (#13) over a real socket: the shared table
 * (`test/support/control-cases.ts`) with global fetch, one server per description and options.
 */
import { afterAll, describe, it } from 'vitest'
import { type MockServer, startMockServer } from '../../src/index.js'
import { sendOverSocket } from '../support/cases.js'
import { type ControlCase, caseKey, controlCases, expectControlCase, optionsOf } from '../support/control-cases.js'
import { silentLogger } from '../../src/common/log.js'

const servers = new Map<string, Promise<MockServer>>()

function serverFor(testCase: ControlCase): Promise<MockServer> {
  const key = caseKey(testCase)
  let server = servers.get(key)
  if (!server) servers.set(key, (server = startMockServer({ ...optionsOf(testCase), port: 0, logger: silentLogger })))
  return server
}

afterAll(async () => {
  await Promise.all([...servers.values()].map(async (server) => (await server).close()))
})

describe('request controls and reported violations over a socket (#13)', () => {
  it.each(controlCases.map((c) => [c.name, c] as const))('%s', async (_name, testCase) => {
    const server = await serverFor(testCase)
    server.clearRequests()
    const received = await sendOverSocket(server.url, testCase.request)
    expectControlCase(testCase, received, server.requests().at(-1))
  })
})
