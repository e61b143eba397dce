/**
 * What `mock.verify()` and the other checks of the handle throw when the journal says the client did
 * not do what the test expected. Named `AssertionError`, as `node:assert`'s is (the core may not import
 * it), so vitest and jest print it as a failed assertion: the message lists what was expected, what was
 * found and the near misses; `failures` holds the same as data, as `POST /__mock/verify` answers them.
 */
export class VerificationError<Failure = unknown> extends Error {
  constructor(
    message: string,
    /** Each check that failed: what it expected, what the journal held, the near misses. */
    readonly failures: readonly Failure[],
    /** Requests the journal had let go of when the checks ran (the oldest, past its size): they were not seen. */
    readonly dropped: number,
  ) {
    super(message)
    this.name = 'AssertionError'
  }
}
