/**
 * The mock as MSW's service worker in a real Chromium (#33), as a runtime of the behaviour suite
 * (`runtimes.ts`). A page served from loopback (a secure context, which service workers need) loads
 * the browser entry, built here with esbuild, and starts the worker over a bundle of the runtime's
 * options; each request is a `fetch` in the page, and each call on the handle runs in the page.
 * The page's server counts every request it did not serve a file of the page for: one means the
 * worker let a request through to the network, and that request fails.
 */
import { readFile } from 'node:fs/promises'
import { type AddressInfo } from 'node:net'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import type { Browser, Page } from 'playwright-core'
import type { AppOptions } from '../../src/http/create-app.js'
import { makeBundle } from '../../src/node/write-bundle.js'
import { silentLogger } from '../../src/common/log.js'
import type { MockPage } from './browser-page.js'
import { launchChromium } from './chromium.js'
import { within } from './processes.js'
import type { RunningMock } from './runtimes.js'

/** A file of the page, by the path it is served at. */
interface PageFile {
  type: string
  body: Uint8Array | string
  /** The package a chunk loaded on demand (`import()`) holds: `json-schema-faker`. */
  lazyPackage?: string
}

/** The mock in Chromium, and which of its chunks loaded on demand the page has fetched so far. */
export interface BrowserMock extends RunningMock {
  /** The packages of the chunks loaded on demand that the page fetched, in order. */
  fetchedPackages(): string[]
}

/** The page (#33): a favicon of its own, so that the browser asks the server for nothing but the page's files. */
const PAGE_HTML =
  '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>plant-store-mock in a service worker</title>' +
  '<script type="module" src="/page.js"></script>'

/** Bodies a Response must not have. */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304])

let built: Promise<Map<string, PageFile>> | undefined

/** The page's files: its HTML, its script with the browser entry and msw (and their lazy chunks), MSW's worker. */
function pageFiles(): Promise<Map<string, PageFile>> {
  return (built ??= buildPageFiles())
}

async function buildPageFiles(): Promise<Map<string, PageFile>> {
  // Nothing is written: the output files are served from memory, at their paths under this folder.
  const outdir = '/page'
  const result = await build({
    entryPoints: { page: fileURLToPath(new URL('./browser-page.ts', import.meta.url)) },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    splitting: true,
    outdir,
    write: false,
    metafile: true,
    logLevel: 'silent',
  })
  const files = new Map<string, PageFile>([['/', { type: 'text/html', body: PAGE_HTML }]])
  for (const file of result.outputFiles) {
    const path = file.path.slice(outdir.length)
    const entry = Object.entries(result.metafile.outputs).find(([output]) => output.endsWith(path))?.[1].entryPoint
    const lazyPackage = entry && /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(entry)?.[1]
    files.set(path, { type: 'text/javascript', body: file.contents, ...(lazyPackage && { lazyPackage }) })
  }
  const worker = createRequire(import.meta.url).resolve('msw/mockServiceWorker.js')
  files.set('/mockServiceWorker.js', { type: 'text/javascript', body: await readFile(worker) })
  return files
}

interface PageServer {
  origin: string
  /** The page's files it served, in order. */
  served: PageFile[]
  /** Every request it was asked that is not for a file of the page, as `METHOD /path`. */
  passedThrough: string[]
  close(): Promise<void>
}

/** A static server of the page's files on loopback, port 0. */
async function servePage(files: Map<string, PageFile>): Promise<PageServer> {
  const passedThrough: string[] = []
  const served: PageFile[] = []
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://page.invalid').pathname
    const file = request.method === 'GET' ? files.get(path) : undefined
    if (!file) {
      passedThrough.push(`${request.method} ${request.url}`)
      response.writeHead(404).end()
      return
    }
    served.push(file)
    response.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' }).end(file.body)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    served,
    passedThrough,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Starts Chromium on a page whose service worker answers as the mock with these options. */
export async function startInBrowser(options: AppOptions): Promise<BrowserMock> {
  const [files, bundle] = await Promise.all([pageFiles(), makeBundle(options, silentLogger)])
  const bundleFile = { type: 'application/json', body: JSON.stringify(bundle) }
  const server = await servePage(new Map([...files, ['/mock.bundle.json', bundleFile]]))
  let browser: Browser | undefined
  const close = async () => {
    await browser?.close()
    await server.close()
  }
  let page: Page
  try {
    browser = await launchChromium()
    page = await browser.newPage()
    await page.goto(`${server.origin}/`, { timeout: 15_000 })
    const start = page.evaluate(([bundle, baseUrl]) => (globalThis as unknown as MockPage).startMock(bundle, baseUrl), [
      '/mock.bundle.json',
      server.origin,
    ] as const)
    await within(30_000, 'the mock in the service worker to start', start)
  } catch (error) {
    await close()
    throw error
  }
  return {
    async request(path, init = {}) {
      const asked = `${init.method ?? 'GET'} ${path}`
      const answer = await within(
        15_000,
        `${asked} in the page`,
        page.evaluate(fetchInPage, { path, init: pageInit(init) }),
      )
      if (server.passedThrough.length)
        throw new Error(
          `${asked}: the page's server was asked ${server.passedThrough.join(', ')}; the worker did not answer`,
        )
      const body = NULL_BODY_STATUSES.has(answer.status) ? null : answer.body
      return new Response(body, { status: answer.status, headers: answer.headers })
    },
    steer(steer, arg) {
      const call = page.evaluate(
        ([source, arg]) => {
          // The test's function, as its source: it runs here, with the page's handle.
          const steer = (0, eval)(`(${source})`) as (mock: unknown, arg: unknown) => unknown
          return steer((globalThis as unknown as MockPage).mock, arg)
        },
        [steer.toString(), arg as unknown] as const,
      )
      return within(15_000, 'a call on the handle in the page', call) as never
    },
    fetchedPackages: () => server.served.flatMap((file) => (file.lazyPackage ? [file.lazyPackage] : [])),
    close,
  }
}

/** A request's init as it crosses into the page: method, headers, and a text body. */
interface PageInit {
  method?: string
  headers: Record<string, string>
  body?: string
}

function pageInit(init: RequestInit): PageInit {
  if (init.body !== undefined && init.body !== null && typeof init.body !== 'string')
    throw new Error('the browser runtime sends text bodies only')
  return {
    method: init.method,
    headers: Object.fromEntries(new Headers(init.headers)),
    body: init.body ?? undefined,
  }
}

/** Runs in the page: the request, and the answer as data that crosses back. */
async function fetchInPage({ path, init }: { path: string; init: PageInit }) {
  const response = await fetch(path, { ...init, signal: AbortSignal.timeout(10_000) })
  return { status: response.status, headers: [...response.headers], body: await response.text() }
}
