/**
 * `plant-store-mock/msw` in Node: the mock as MSW request handlers (`createHandlers`), for
 * `setupServer(...handlers)` from `msw/node`, with the same handle as `createApp().mock`.
 */
export { type NodeHandlersOptions, createHandlers } from './node/create-handlers.js'
export type { HandlersOptions, MockHandlers } from './msw-handlers/create-mock-handlers.js'
export type { MockBundle } from './bundle/mock-bundle.js'
export type { MockHandle, MockState, StubDefinition, StubHandle } from './admin/mock-handle.js'
export type { JournalEntry, JournalResponse } from './journal/journal-entry.js'
export type { JournalFilter } from './journal/journal-filter.js'
export type { RequestCheck } from './verify/verify-check.js'
export { StartupError, type StartupErrorCode, startupErrorCodes } from './errors/index.js'
export { VerificationError } from './errors/verification-error.js'
