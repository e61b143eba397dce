/**
 * What a browser meets at the mock (#13), over a real socket (port 0) with `node:http`, which sends
 * `Origin` as given: the shared suite (`test/support/browser-cases.ts`).
 */
import { request } from 'node:http'
import { type RequestLine, startMockServer } from '../../src/index.js'
import { type BrowserAnswer, describeBrowserCases } from '../support/browser-cases.js'

function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<BrowserAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        const answerHeaders = new Headers()
        for (const [name, value] of Object.entries(res.headers))
          if (value !== undefined) answerHeaders.set(name, Array.isArray(value) ? value.join(', ') : value)
        resolve({ status: res.statusCode!, headers: answerHeaders, text: Buffer.concat(chunks).toString('utf8') })
      })
    })
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer to ${method} ${url} within 10 s`)))
    req.on('error', reject)
    req.end(body)
  })
}

describeBrowserCases('over a socket', async (options) => {
  const logged: RequestLine[] = []
  const server = await startMockServer({
    ...options,
    port: 0,
    logger: { info() {}, warn() {}, error() {}, request: (line) => void logged.push(line) },
  })
  return {
    send: (method, path, headers = {}, body) => send(server.url + path, method, headers, body),
    mock: server,
    logged,
    close: () => server.close(),
  }
})
