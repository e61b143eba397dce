import type { Engine } from '../engine/engine.js'
import type { MockError } from '../errors/index.js'
import { rankMediaTypes } from '../responses/negotiate.js'
import { renderError } from '../responses/render-error.js'
import type { AdminRoute } from '../admin/admin-routes.js'
import type { AnswerOwnPage } from '../pipeline/exchange.js'
import type { Reply } from '../pipeline/reply.js'

/** Answers a request routing missed with a page of the mock's own, or `undefined` for the usual 404. */

/** The index, rendered both ways on first use: the operations never change while an app lives. */
interface IndexPage {
  json: string
  html: string
}

const FAVICON = '/favicon.ico'
/** JSON first: a client that states no preference (curl, fetch) gets JSON; a browser prefers HTML. */
const INDEX_MEDIA = [{ contentType: 'application/json' }, { contentType: 'text/html; charset=utf-8' }]

/**
 * Two paths a browser asks for and most descriptions leave out, answered by the mock itself:
 * `GET /` (and HEAD) lists the operations served and the admin routes, where a 404 told a developer
 * who opened the mock's address nothing; `/favicon.ico` is a 404 kept out of the journal and the
 * request log, where every page load put one. Called only once routing has missed, so a declared
 * operation never pays for it, and a description that declares either path is served as declared.
 * Neither answer is journaled: like the admin API's, they are the mock's, not the described API's.
 */
export function createOwnPages(engine: Engine, adminRoutes: readonly AdminRoute[]): AnswerOwnPage {
  const declared = new Set(engine.operations.map((operation) => routeOf(operation.path)))
  let index: IndexPage | undefined
  return function answerOwnPage(request, miss) {
    if (request.method !== 'GET' && request.method !== 'HEAD') return undefined
    if (request.path === '/' && !declared.has('/'))
      return renderIndex((index ??= compileIndex(engine, adminRoutes)), request.header('accept'))
    if (request.path === FAVICON && !declared.has(FAVICON)) return renderQuietMiss(miss, engine)
    return undefined
  }
}

/** `/alerts?lat={lat}` and `/#Action=List` are routed at the part before `?` or `#`. */
function routeOf(pathKey: string): string {
  return pathKey.split(/[?#]/, 1)[0]!
}

function renderIndex(index: IndexPage, accept: string | undefined): Reply {
  const html = rankMediaTypes(INDEX_MEDIA, accept)[0] === INDEX_MEDIA[1]
  return {
    status: 200,
    headers: { 'content-type': html ? 'text/html; charset=utf-8' : 'application/json', vary: 'Accept' },
    body: html ? index.html : index.json,
  }
}

function renderQuietMiss(miss: MockError, engine: Engine): Reply {
  const { status, headers, body } = renderError(miss, undefined, engine.errorContext)
  return { status, headers, body }
}

function compileIndex(engine: Engine, adminRoutes: readonly AdminRoute[]): IndexPage {
  const info = engine.spec.document.info ?? {}
  const title = `${info.title ?? 'API'} ${info.version ?? ''}`.trim()
  const message = `${title}, mocked by plant-store-mock. The description declares no GET /, so the mock lists what it serves here.`
  const operations = engine.operations.map(({ method, path, id }) => ({
    method,
    path,
    // The compiled id is the operationId, or `METHOD /path` where the description gives none.
    ...(id === `${method} ${path}` ? {} : { operationId: id }),
  }))
  const admin = adminRoutes.length ? { admin: adminRoutes } : {}
  const json = JSON.stringify({ message, title: info.title, version: info.version, operations, ...admin })
  return { json, html: renderIndexHtml(title, message, operations, adminRoutes) }
}

function renderIndexHtml(
  title: string,
  message: string,
  operations: ReadonlyArray<{ method: string; path: string; operationId?: string }>,
  adminRoutes: readonly AdminRoute[],
): string {
  const rows = operations.map(
    (o) =>
      `<tr><td>${o.method}</td><td>${linkIfGet(o.method, o.path)}</td><td>${escapeHtml(o.operationId ?? '')}</td></tr>`,
  )
  const admin = adminRoutes.map((r) => `<li>${r.method} ${linkIfGet(r.method, r.path)}</li>`)
  return [
    '<!doctype html>',
    `<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>`,
    `<h1>${escapeHtml(title)}</h1>`,
    `<p>${escapeHtml(message)}</p>`,
    `<h2>Operations (${operations.length})</h2>`,
    `<table><thead><tr><th>method</th><th>path</th><th>operationId</th></tr></thead><tbody>${rows.join('')}</tbody></table>`,
    adminRoutes.length ? `<h2>Admin API</h2><ul>${admin.join('')}</ul>` : '',
    '</body></html>',
  ].join('\n')
}

/** A path a browser can open as it stands: GET, no template to fill in, and on this host (`//x` is another). */
function linkIfGet(method: string, path: string): string {
  const text = escapeHtml(path)
  return method === 'GET' && /^\/(?!\/)[^{?#]*$/.test(path) ? `<a href="${text}">${text}</a>` : text
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}
