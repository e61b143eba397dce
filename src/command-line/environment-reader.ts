import { resolve } from 'node:path'

/**
 * An environment variable whose value the mock took (no flag overrode it). A start-up error that
 * quotes one of its `mentions` is about that value, and the CLI then names the variable: the user
 * wrote `PORT=4010`, not `--port 4010`.
 */
export interface EnvironmentSetting {
  variable: string
  value: string
  mentions: string[]
}

/**
 * Reads the variables the CLI takes (an empty one counts as unset) and remembers those it used,
 * so that an error about their values can name them.
 */
export class EnvironmentReader {
  readonly used: EnvironmentSetting[] = []

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** `parse` receives the source to name in its messages: "The environment variable PORT". */
  read<T>(
    variable: string,
    parse: (source: string, text: string) => T,
    mentions: (text: string) => string[] = () => [],
  ): T | undefined {
    const value = this.env[variable]
    if (!value) return undefined
    const parsed = parse(`The environment variable ${variable}`, value)
    this.used.push({ variable, value, mentions: mentions(value) })
    return parsed
  }

  /** A file or folder: errors quote it resolved. */
  path(variable: string): string | undefined {
    return this.read(
      variable,
      (_, path) => path,
      (path) => [resolve(path)],
    )
  }
}
