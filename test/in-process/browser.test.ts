/**
 * What a browser meets at the mock (#13), in process through `createApp().request()`: the shared
 * suite (`test/support/browser-cases.ts`).
 */
import { createApp } from '../../src/index.js'
import type { RequestLine } from '../../src/index.js'
import { describeBrowserCases } from '../support/browser-cases.js'

describeBrowserCases('through app.request()', async (options) => {
  const logged: RequestLine[] = []
  const app = await createApp({
    ...options,
    logger: { info() {}, warn() {}, error() {}, request: (line) => void logged.push(line) },
  })
  return {
    async send(method, path, headers = {}, body) {
      const response = await app.request(path, { method, headers, body })
      return { status: response.status, headers: response.headers, text: await response.text() }
    },
    mock: app.mock,
    logged,
    close: async () => {},
  }
})
