/**
 * The script of the browser runtime's page (`browser-runtime.ts`), built for Chromium with esbuild:
 * `startMock` makes the mock's handlers from a bundle through the browser entry, starts MSW's
 * service worker over them, and leaves the handle where the test's calls, run in the page, find it.
 */
import { setupWorker } from 'msw/browser'
import { createHandlers } from '../../src/msw-browser.js'
import type { MockHandle } from '../../src/admin/mock-handle.js'

/** What the page keeps on its global object (the DOM's types are not this project's). */
export interface MockPage {
  startMock(bundle: string, baseUrl: string): Promise<void>
  mock?: MockHandle
}

const page = globalThis as unknown as MockPage

page.startMock = async (bundle, baseUrl) => {
  const { handlers, mock } = await createHandlers({ bundle, baseUrl })
  // The page's own files (this script, the bundle) are the page server's: bypassed, not warned about.
  await setupWorker(...handlers).start({ onUnhandledRequest: 'bypass', quiet: true })
  page.mock = mock
}
