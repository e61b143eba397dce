/**
 * `plant-store-mock/msw` in Node: the mock as MSW request handlers (`createHandlers`), for
 * `setupServer(...handlers)` from `msw/node`, with the same handle as `createApp().mock`.
 */
export { type NodeHandlersOptions, createHandlers } from './node/create-handlers.js'
export * from './msw-handlers/entry-exports.js'
