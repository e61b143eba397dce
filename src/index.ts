/**
 * The package's API: build the mock as an app for `app.request()` (`createApp`), or start it on a socket
 * (`startMockServer`), and the types they take and give.
 */
export type { AppOptions, MockApp } from './http/create-app.js'
export { createApp } from './node/create-app.js'
export { type MockServer, startMockServer } from './node/start-mock-server.js'
export type { CoverageMinimum, MockOptions } from './common/config.js'
/** What start-up rejects with: `code` names the problem (one of `startupErrorCodes`), `message` explains it. */
export { StartupError, type StartupErrorCode, startupErrorCodes } from './errors/index.js'
/** What `app.request()` rejects with when a scenario's fault (`reset`, `empty`, `hang`) sends no response; see its class. */
export { NetworkFault } from './pipeline/faults.js'
export type { JournalEntry, JournalResponse } from './journal/journal-entry.js'
export type { JournalFilter, StatusClass } from './journal/journal-filter.js'
export type { Logger, RequestLine } from './common/log.js'
export type { MockHandle, MockState, StubDefinition, StubHandle } from './admin/mock-handle.js'
/** What `mock.verify()` and the other checks throw when the journal does not hold what a test expected: an `AssertionError` by name. */
export { VerificationError } from './errors/verification-error.js'
export type { RequestCheck } from './verify/verify-check.js'
export type { CoverageReport, OperationCoverage, ResponseCoverage, Ratio } from './coverage/coverage-report.js'
export type { NearMissSeen, RequestSeen, VerifyFailure } from './verify/verify-checks.js'
export type { DeliveryFilter, DeliveryRecord, DeliveryWait } from './events/delivery.js'
