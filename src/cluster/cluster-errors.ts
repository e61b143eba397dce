import { MockError } from '../errors/index.js'

/**
 * What a client gets when a worker of `--workers N` cannot reach the primary or another worker in
 * time: 503, saying what was not done, never a hang.
 */
export const clusterErrors = {
  noAnswer: (what: string, ms: number) =>
    new MockError(
      503,
      'internal',
      `The mock's primary process did not answer ${what} within ${ms / 1000} s; try again (the log says why).`,
    ),
  gone: (what: string) =>
    new MockError(
      503,
      'internal',
      `The mock's primary process is gone, so ${what} could not be done; restart the mock.`,
    ),
  failed: (what: string, message: string, status = 500) =>
    new MockError(status, 'internal', `${what} failed in the mock's primary process: ${message}`),
}
