import { defineConfig } from 'vite'
import { mockPlugin } from 'plant-store-mock/vite'

// `npx vite` here: the app and its API on one port; /api/* is answered by the mock, which keeps the
// plants added (stateful) and reloads when openapi.yaml or fixtures/ change. /api/__mock/ is its dashboard.
export default defineConfig({
  plugins: [mockPlugin({ spec: 'openapi.yaml', base: '/api', stateful: true })],
})
