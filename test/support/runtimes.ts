/**
 * The places the mock runs (#33), behind one small interface, so that one behaviour suite
 * (`test/socket/runtimes.test.ts`) runs against each without being copied: a real socket server
 * with `fetch`, `app.request()` in process, MSW in Node (`setupServer`) with the real `fetch` it
 * intercepts, the same over a bundle through the browser entry (no file system, hashing in
 * JavaScript, multipart read by fetch), and that entry in MSW's service worker in a real Chromium
 * (`browser-runtime.ts`; left out, saying so, where Chromium is not installed). A runtime is started
 * with the options `createApp` takes, answers requests by path, and runs calls on its handle.
 */
import { setupServer } from 'msw/node'
import type { MockHandle } from '../../src/admin/mock-handle.js'
import type { AppOptions } from '../../src/http/create-app.js'
import { createApp, startMockServer } from '../../src/index.js'
import { createHandlers } from '../../src/msw.js'
import { createHandlers as createBrowserHandlers } from '../../src/msw-browser.js'
import type { MockHandlers } from '../../src/msw-handlers/create-mock-handlers.js'
import { makeBundle } from '../../src/node/write-bundle.js'
import { silentLogger } from '../../src/common/log.js'
import { startInBrowser } from './browser-runtime.js'
import { hasChromium, sayWhenSkipped } from './chromium.js'

/** A mock running somewhere: requests by path, and calls on its handle. */
export interface RunningMock {
  request(path: string, init?: RequestInit): Promise<Response>
  /**
   * Runs `steer` on the mock's handle where the mock runs, and gives what it returns. In a browser it
   * runs in the page: it may use nothing but its arguments, and should return plain data.
   */
  steer<R, A = undefined>(steer: (mock: MockHandle, arg: A) => R, arg?: A): Promise<R>
  close(): Promise<void>
}

export interface Runtime {
  name: string
  start(options: AppOptions): Promise<RunningMock>
}

/** The origin the MSW runtime's requests go to: nothing listens there, so only the handlers can answer. */
const MSW_ORIGIN = 'http://plant-store.test'

export const runtimes: Runtime[] = [
  {
    name: 'a socket server',
    async start(options) {
      const server = await startMockServer({ ...options, port: 0, quiet: true })
      return {
        request: (path, init) => fetch(server.url + path, { ...init, signal: AbortSignal.timeout(10_000) }),
        steer: async (steer, arg) => steer(server, arg!),
        close: () => server.close(),
      }
    },
  },
  {
    name: 'app.request()',
    async start(options) {
      const app = await createApp(options)
      return {
        request: async (path, init) => app.request(path, init),
        steer: async (steer, arg) => steer(app.mock, arg!),
        close: async () => {},
      }
    },
  },
  {
    name: 'MSW in Node',
    start: async (options) => interceptWith(await createHandlers({ ...options, baseUrl: MSW_ORIGIN })),
  },
  {
    name: 'MSW over a bundle (the browser entry)',
    async start(options) {
      const bundle = JSON.parse(JSON.stringify(await makeBundle(options, silentLogger)))
      return interceptWith(await createBrowserHandlers({ bundle, baseUrl: MSW_ORIGIN }))
    },
  },
  ...(hasChromium ? [{ name: 'MSW in Chromium (a service worker)', start: startInBrowser }] : []),
]
sayWhenSkipped('the runtime "MSW in Chromium"')

/** MSW in this process over the handlers; requests go to `MSW_ORIGIN` with the real `fetch`. */
function interceptWith({ handlers, mock }: MockHandlers): RunningMock {
  const server = setupServer(...handlers)
  // Refused, never sent on: a request the handlers do not take must not reach the network.
  server.listen({ onUnhandledRequest: 'error' })
  return {
    request: (path, init) => fetch(MSW_ORIGIN + path, { ...init, signal: AbortSignal.timeout(10_000) }),
    steer: async (steer, arg) => steer(mock, arg!),
    close: async () => server.close(),
  }
}
