/**
 * The store a behaviour suite runs against (#32): the same test files run once in memory (project
 * `memory`) and once on a real redis-server (project `redis`, `vitest.config.ts`), parameterised
 * here rather than copied. Files of both import `createApp` from here instead of the package.
 */
import { afterAll, inject } from 'vitest'
import { type AppOptions, type MockApp, createApp as createPackageApp } from '../../src/index.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The redis-server the `redis` project's global set-up started; `''` in the `memory` project. */
    redisUrl: string
  }
}

/** `redis` when this run keeps state in a redis-server, else `memory`. */
export const storeUnderTest: 'memory' | 'redis' = inject('redisUrl') ? 'redis' : 'memory'

/**
 * The id the journal gives its `n`th entry: on Redis the app is one replica (slot 0) of those on the
 * store, and ids are `n × 64 + slot`, unique across replicas, as a worker's of `--workers` are.
 */
export const entryId = (n: number): number => (storeUnderTest === 'redis' ? n * 64 : n)

let apps = 0
const opened: MockApp[] = []

/**
 * `createApp`, with the store under test: on Redis, each app its own key prefix (a fresh store, as a
 * fresh app's memory is), closed when the file's tests are done.
 */
export async function createApp(options: AppOptions = {}): Promise<MockApp> {
  if (storeUnderTest === 'memory') return createPackageApp(options)
  const app = await createPackageApp({
    store: inject('redisUrl'),
    storePrefix: `test-${process.pid}-${Date.now()}-${++apps}`,
    ...options,
  })
  opened.push(app)
  return app
}

afterAll(async () => {
  await Promise.all(opened.splice(0).map((app) => app.mock.close()))
})
