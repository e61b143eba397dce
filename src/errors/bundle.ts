import { StartupError, type StartupErrorCode } from './startup-error.js'

const fail = (code: StartupErrorCode, message: string) => new StartupError(code, message)

/** A mock bundle (`plant-store-mock bundle`, #33) that cannot be read, and what needs Node where there is none. */
export const bundleErrors = {
  bundleInvalid: (where: string, problem: string) =>
    fail(
      'bundle_invalid',
      `${where} is not a bundle of this mock: ${problem}. Make it again with \`plant-store-mock bundle <description> --out <file>\`.`,
    ),
  bundleUnreadable: (where: string, reason: string) =>
    fail('bundle_unreadable', `Cannot read the mock bundle ${where}: ${reason}.`),
  bundleUnwritable: (path: string, reason: string) =>
    fail('bundle_unwritable', `Cannot write the mock bundle to ${path}: ${reason}.`),
  needsNode: (option: string, where: string) =>
    fail(
      'option_needs_node',
      `${option} is not available in ${where}: it needs Node (a file system, or a network client of its own). Leave it out, or run the mock from Node (createHandlers without a bundle, or the server).`,
    ),
}
