import { expect } from 'vitest'
import { StartupError, startupErrorCodes, type StartupErrorCode } from '../../src/errors/index.js'

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

/**
 * The StartupError a promise rejects with, having asserted its code first (the code is what a test
 * checks; the message is checked only for what a user needs from it: the file, the field, the hint).
 */
export async function expectStartupError(
  promise: Promise<unknown>,
  code: StartupErrorCode,
  label?: string,
): Promise<StartupError> {
  const error = await startupErrorOf(promise)
  expect(error.code, label).toBe(code)
  return error
}

/** The StartupError a function throws, having asserted its code first (`label` names the case in a loop). */
export function expectStartupErrorThrown(run: () => unknown, code: StartupErrorCode, label?: string): StartupError {
  let thrown: unknown
  try {
    run()
  } catch (error) {
    thrown = error
  }
  expect(thrown, label).toBeInstanceOf(StartupError)
  expect((thrown as StartupError).code, label).toBe(code)
  return thrown as StartupError
}
