/** What `plant-store-mock/msw` exports besides `createHandlers`, the same in Node (`msw.ts`) and in a browser (`msw-browser.ts`). */
export type { HandlersOptions, MockHandlers } from './create-mock-handlers.js'
export type { MockBundle } from '../bundle/mock-bundle.js'
export type { MockHandle, MockState, StubDefinition, StubHandle } from '../admin/mock-handle.js'
export type { JournalEntry, JournalResponse } from '../journal/journal-entry.js'
export type { JournalFilter } from '../journal/journal-filter.js'
export type { RequestCheck } from '../verify/verify-check.js'
export { StartupError, type StartupErrorCode, startupErrorCodes } from '../errors/index.js'
export { VerificationError } from '../errors/verification-error.js'
