import { expect } from 'vitest'
import { StartupError } from '../../src/errors.js'

/** The StartupError a promise rejects with (fails the test if it resolves or rejects with anything else). */
export async function startupErrorOf(promise: Promise<unknown>): Promise<StartupError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  expect(error).toBeInstanceOf(StartupError)
  return error as StartupError
}
