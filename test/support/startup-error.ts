import { expect } from 'vitest'
import { StartupError, startupErrorCodes } from '../../src/errors.js'

/**
 * The StartupError a promise rejects with (fails the test if it resolves or rejects with anything
 * else, or with a code not in the catalogue).
 */
export async function startupErrorOf(promise: Promise<unknown>): Promise<StartupError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  expect(error).toBeInstanceOf(StartupError)
  expect(startupErrorCodes).toContain((error as StartupError).code)
  return error as StartupError
}
