/**
 * The built package's MSW handlers (`plant-store-mock/msw`, dist/) under `setupServer` from
 * `msw/node`, run in a child Node: it prints what it saw as one JSON line, for
 * test/process/node-versions.test.ts to check. There, Node 22 and 24 run it with msw 3
 * (`--import ./test/support/msw3-resolve.mjs`) and this Node with msw 2.
 */
import { createServer } from 'node:http'
import { setupServer } from 'msw/node'
import msw from 'msw/package.json' with { type: 'json' }
import { createHandlers } from 'plant-store-mock/msw'

/**
 * The API's origin is a real server on loopback, standing for the network: a request MSW lets
 * through reaches it (and is listed), one the mock answers must not.
 */
const reachedNetwork = []
const network = createServer((request, response) => {
  reachedNetwork.push(`${request.method} ${request.url}`)
  response.writeHead(299, { 'content-type': 'application/json' }).end('"the network"')
})
await new Promise((resolve) => network.listen(0, '127.0.0.1', resolve))
const API = `http://127.0.0.1:${network.address().port}`

/** A request and what it got: its status and body, or why the fetch failed. */
async function exchange(path, init = {}) {
  try {
    const response = await fetch(`${API}${path}`, { ...init, signal: AbortSignal.timeout(5000) })
    const text = await response.text()
    return { status: response.status, body: text === '' ? null : JSON.parse(text) }
  } catch (error) {
    return { failed: error.cause?.message ?? error.message }
  }
}

function addPlant(headers, body = { id: 1, name: 'Fern' }) {
  return exchange('/plants', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
}

/** MSW over the mock's handlers; a request no handler takes is listed, then goes on to the network. */
async function intercept(options) {
  const { handlers, mock } = await createHandlers({ baseUrl: API, ...options })
  const unhandled = []
  const note = (request) => unhandled.push(`${request.method} ${new URL(request.url).pathname}`)
  const server = setupServer(...handlers)
  // msw 3 renamed the option and passes a network frame: an HTTP frame holds the request.
  server.listen(
    msw.version.startsWith('2.')
      ? { onUnhandledRequest: note }
      : { onUnhandledFrame: ({ frame }) => note(frame.data.request) },
  )
  return { mock, server, unhandled }
}

const seen = { node: process.version, msw: msw.version }

const lenient = await intercept({})
const token = { authorization: 'Bearer t' }
seen.valid = await addPlant(token)
seen.noToken = await addPlant({})
seen.invalidBody = await addPlant(token, { name: 42 })
seen.preferCode400 = await addPlant({ ...token, prefer: 'code=400' })
lenient.mock.useScenario('error')
seen.errorScenario = await addPlant(token)
lenient.mock.useScenario('flaky-network')
seen.resetFault = await addPlant(token)
seen.undescribed = await exchange('/nothing-described')
seen.unhandled = lenient.unhandled
seen.journal = lenient.mock.requests().map((entry) => `${entry.method} ${entry.path} ${entry.status}`)
lenient.server.close()

const strict = await intercept({ strict: true })
seen.strictUndescribed = await exchange('/nothing-described')
seen.strictUnhandled = strict.unhandled
strict.server.close()

seen.reachedNetwork = reachedNetwork
network.closeAllConnections()
network.close()
console.log(JSON.stringify(seen))
