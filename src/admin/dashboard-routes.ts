import type { Hono } from 'hono'
import { ADMIN_PREFIX } from '../common/config.js'

/**
 * What the dashboard's page may do: its own script and style only (no inline code, so markup that
 * slipped into the page could not run), calls to the mock itself, no frames, no foreign forms.
 */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

const DASHBOARD_PATH = `${ADMIN_PREFIX}/`

/** The page as `/__mock` (no slash) serves it: its relative links start with the folder's name. */
const fromOutsideFolder = (html: string) => html.replaceAll('="dashboard/', `="${ADMIN_PREFIX.slice(1)}/dashboard/`)

const SECURITY_HEADERS = {
  'content-security-policy': DASHBOARD_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
}

/** The page, its script and its style, imported on the first visit: a browser build keeps them in a chunk of its own (#33). */
type Assets = typeof import('./dashboard-assets.js')

/**
 * `GET /__mock/` and its two assets. Registered after the Host and Origin checks and before the
 * token's: a browser's navigation cannot send a bearer token, so the page asks for it and sends it
 * with each call it makes. The page holds no data; everything it shows comes from the admin API.
 */
export function addDashboardRoutes(admin: Hono): void {
  const page = (bodyOf: (assets: Assets) => string, contentType: string) => async () =>
    new Response(bodyOf(await import('./dashboard-assets.js')), {
      headers: { 'content-type': contentType, ...SECURITY_HEADERS },
    })
  const html = page((assets) => assets.DASHBOARD_HTML, 'text/html; charset=utf-8')
  // `/__mock` too (mounted at `/__mock`, Hono routes `/` to `/__mock` only, so `/__mock/` is caught
  // below). The page's links are relative, so that it works under a prefix too (the Vite plugin's
  // base): from `/__mock` they name the folder first.
  admin.get(
    '/',
    page((assets) => fromOutsideFolder(assets.DASHBOARD_HTML), 'text/html; charset=utf-8'),
  )
  admin.use('*', async function serveDashboard(c, next) {
    if ((c.req.method === 'GET' || c.req.method === 'HEAD') && c.req.path === DASHBOARD_PATH) return html()
    return next()
  })
  admin.get(
    '/dashboard/dashboard.js',
    page((assets) => assets.DASHBOARD_SCRIPT, 'text/javascript; charset=utf-8'),
  )
  admin.get(
    '/dashboard/dashboard.css',
    page((assets) => assets.DASHBOARD_CSS, 'text/css; charset=utf-8'),
  )
}
