import { defineConfig } from 'vitest/config'

// The tests answer the app's fetch with MSW (test/plants.test.ts), so they leave vite.config.ts and its
// dev-server plugin aside: vitest reads this file instead.
export default defineConfig({
  test: { include: ['test/**/*.test.ts'], environment: 'node' },
})
