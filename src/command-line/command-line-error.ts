import { StartupError, type StartupErrorCode } from '../errors/index.js'

export type CommandLineErrorCode = Extract<StartupErrorCode, `cli_${string}`>

/** A command line the mock cannot follow; `code` is stable, the message says what to write instead. */
export class CommandLineError extends StartupError {
  constructor(
    override readonly code: CommandLineErrorCode,
    message: string,
  ) {
    super(code, message)
    this.name = 'CommandLineError'
  }
}
