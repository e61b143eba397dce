import { defineConfig } from 'vitest/config'

/** The behaviour suites that run against both stores, memory and Redis (#32): data, stubs, scenarios, rules, the journal, verification. */
const BOTH_STORES = [
  'test/in-process/stateful-*.test.ts',
  'test/in-process/stubs.test.ts',
  'test/in-process/scenarios.test.ts',
  'test/in-process/admin.test.ts',
  'test/in-process/conditional-rules*.test.ts',
  'test/in-process/verify.test.ts',
  'test/in-process/journal-responses.test.ts',
]

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // What Node's engine loads at start-up and a browser on demand (RE2), loaded as on Node for tests that start no engine.
    setupFiles: ['test/support/load-as-node.ts'],
    // Two cores here: two workers keep the socket tests from starving each other.
    maxWorkers: 2,
    testTimeout: 15_000,
    projects: [
      { extends: true, test: { name: 'memory', provide: { redisUrl: '' } } },
      // The same suites again on a real redis-server (test/support/redis-server.ts), started once for them.
      {
        test: {
          name: 'redis',
          include: BOTH_STORES,
          globalSetup: ['test/global-setup.ts', 'test/support/redis-global-setup.ts'],
          setupFiles: ['test/support/load-as-node.ts'],
          maxWorkers: 2,
          testTimeout: 15_000,
        },
      },
    ],
  },
})
