import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Two cores here: two workers keep the socket tests from starving each other.
    maxWorkers: 2,
    testTimeout: 15_000,
  },
})
