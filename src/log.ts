/** The one place that owns the `[mock]` prefix of everything the mock prints. */
export interface Logger {
  info(message: string): void
  warn(message: string): void
  error(message: string): void
}

export const consoleLogger: Logger = {
  info: (message) => console.log(`[mock] ${message}`),
  warn: (message) => console.warn(`[mock] warning: ${message}`),
  error: (message) => console.error(`[mock] error: ${message}`),
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} }
