import { isAbsolute, resolve } from 'node:path'
import { getRequestListener } from '@hono/node-server'
import type { Logger as ViteLogger, Plugin } from 'vite'
import { type Logger, textPrefix } from '../common/log.js'
import type { AppOptions } from '../http/create-app.js'
import { type ReloadingApp, createReloadingApp } from '../node/reloading-app.js'
import { isRemoteDescription } from '../node/remote-description.js'
import { checkBase, pathUnderBase } from './path-under-base.js'

export interface MockPluginOptions extends Omit<AppOptions, 'port' | 'host'> {
  /**
   * The path the mock answers under on Vite's dev server, taken off before the mock sees the request:
   * `/api/plants` is the description's `/plants`, `/api/__mock/` the dashboard. Every other request
   * goes on to Vite.
   * @default '/api'
   */
  base?: string
  /**
   * Reload the mock when the description, a file its `$ref`s name, a fixture, a scenario or the seed
   * data changes; the scenario, stubs, journal and data carry over, as with `--watch`.
   * @default true
   */
  watch?: boolean
}

/**
 * The mock on Vite's dev server (`vite`, `vite dev`): requests under `base` are answered by the mock on
 * Vite's own port, so the app needs no second process and no CORS. Relative paths (`spec`, `fixtures`,
 * `stateFile`...) are read from Vite's `root`. Every other option is `createApp`'s. A bad description
 * stops Vite from starting, with the `StartupError` that names the problem.
 * @example
 * // vite.config.ts, with defineConfig imported from vite and mockPlugin from plant-store-mock/vite
 * export default defineConfig({
 *   plugins: [mockPlugin({ spec: 'openapi.yaml', base: '/api', tokens: ['dev-token'] })],
 * })
 * // fetch('/api/plants') in the app is answered by the mock; /api/__mock/ is its dashboard
 */
export function mockPlugin(options: MockPluginOptions = {}): Plugin {
  const { base = '/api', ...appOptions } = options
  const prefix = checkBase(base)
  // The mocks of the dev servers this plugin serves, oldest first: when Vite restarts (its config
  // changed), it makes the new server before it closes the old one, so the oldest is the one closed.
  const mocks: ReloadingApp[] = []
  return {
    name: 'plant-store-mock',
    apply: 'serve',
    async configureServer(server) {
      const { root, logger } = server.config
      const mock = await createReloadingApp(
        { ...rootedPaths(appOptions, root), watch: appOptions.watch ?? true },
        appOptions.logger ?? mockLogger(logger),
      )
      mocks.push(mock)
      /*
       * The mock's own watcher (watch.ts), not Vite's `server.watcher`: it follows exactly the files a
       * load read, `$ref`s outside Vite's root included, and what it follows changes with each reload,
       * as `--watch` does (one behaviour, already tested there); it does not depend on Vite's
       * `server.watch` settings either. It costs a watch handle per folder read, a handful.
       */
      mock.begin()
      // The same listener as the mock's own server: the request keeps Node's connection (its parsed
      // headers, its body read as it streams). Vite's server owns its connections, so no caps here;
      // Vite's globals are left as they are.
      const answer = getRequestListener(mock.handler(), { overrideGlobalObjects: false })
      // Added here, before Vite's own middlewares: a path under `base` never reaches Vite's transforms.
      server.middlewares.use(function answerUnderBase(req, res, next) {
        const path = req.url === undefined ? undefined : pathUnderBase(req.url, prefix)
        if (path === undefined) return next()
        req.url = path
        answer(req, res).catch(next)
      })
    },
    async closeServer() {
      await mocks.shift()?.close()
    },
  }
}

/** The options with their relative paths read from `root`, as Vite reads its own; a description by URL stays as it is. */
function rootedPaths(options: AppOptions, root: string): AppOptions {
  const rooted = (path: string | undefined) => (path === undefined || isAbsolute(path) ? path : resolve(root, path))
  const { spec, fixtures, stateFile, record, coverageReport, allowRefOutside } = options
  return {
    ...options,
    spec: spec === undefined || isRemoteDescription(spec) ? spec : rooted(spec),
    fixtures: rooted(fixtures),
    stateFile: rooted(stateFile),
    record: rooted(record),
    coverageReport: rooted(coverageReport),
    allowRefOutside: allowRefOutside?.map((folder) => rooted(folder)!),
  }
}

/** The mock's warnings and reloads in Vite's log, with Vite's timestamp; requests are not logged. */
function mockLogger(vite: ViteLogger): Logger {
  return {
    info: (message) => vite.info(`${textPrefix.info}${message}`, { timestamp: true }),
    warn: (message) => vite.warn(`${textPrefix.warn}${message}`, { timestamp: true }),
    error: (message) => vite.error(`${textPrefix.error}${message}`, { timestamp: true }),
  }
}
