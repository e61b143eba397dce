import {
  type ConsoleLogger,
  type LogFormat,
  type Logger,
  formatRequestJson,
  formatRequestText,
  textPrefix,
} from '../common/log.js'

export type { ConsoleLogger }

export interface ConsoleLoggerOptions {
  /** @default 'text' */
  logFormat?: LogFormat
  /** No request lines; the start line, warnings and errors are still printed. @default false */
  quiet?: boolean
  /** @default process.stdout */
  stdout?: NodeJS.WritableStream
  /** @default process.stderr */
  stderr?: NodeJS.WritableStream
}

/**
 * Info and request lines to stdout, warnings and errors to stderr, as text or one JSON object per line.
 * @note Request lines are queued and written once per event-loop turn (`setImmediate`), after the
 * answers of that turn were handed to their sockets: the write stays off the request path.
 */
export function createConsoleLogger({
  logFormat = 'text',
  quiet = false,
  stdout: rawStdout = process.stdout,
  stderr: rawStderr = process.stderr,
}: ConsoleLoggerOptions = {}): ConsoleLogger {
  const stdout = guardedWriter(rawStdout)
  const stderr = guardedWriter(rawStderr)
  const json = logFormat === 'json'
  const format = json ? formatRequestJson : formatRequestText
  // Formatted at once, queued as text: holding the line object until the flush would keep the
  // request's objects alive past a young-generation GC, which cost more than the formatting.
  let pending = ''
  const flush = () => {
    if (pending === '') return
    const text = pending
    pending = ''
    stdout.write(text)
  }
  // Request lines written before a message stay before it.
  const print = (stream: GuardedWriter, level: 'info' | 'warn' | 'error', message: string) => {
    flush()
    stream.write(
      json
        ? `${JSON.stringify({ time: new Date().toISOString(), level, message })}\n`
        : `${textPrefix[level]}${message}\n`,
    )
  }
  const logger: ConsoleLogger = {
    info: (message) => print(stdout, 'info', message),
    warn: (message) => print(stderr, 'warn', message),
    error: (message) => print(stderr, 'error', message),
    flush,
    droppedLines: () => stdout.dropped + stderr.dropped,
  }
  if (!quiet) {
    logger.request = (line) => {
      if (pending === '') setImmediate(flush)
      pending += format(line)
    }
  }
  return logger
}

interface GuardedWriter {
  write(text: string): void
  /** Writes (each one line or more) dropped so far. */
  readonly dropped: number
}

/** Bytes waiting in a stream's buffer beyond which new lines are dropped, not queued. */
const MAX_BUFFERED_BYTES = 1024 * 1024

/**
 * A stream the mock writes to but never depends on. A reader that goes away (`| head`, a CI step
 * that stops reading) makes writes fail with EPIPE, an error event that would end the process; a
 * reader that stops reading makes writes queue in memory without bound. Either way the mock keeps
 * serving: errors are caught once per stream, and lines past a small buffer are dropped and counted.
 */
function guardedWriter(stream: NodeJS.WritableStream): GuardedWriter {
  listenForErrors(stream)
  const writable = stream as NodeJS.WritableStream & { writableLength?: number; destroyed?: boolean }
  let dropped = 0
  return {
    write(text) {
      if (brokenStreams.has(stream) || writable.destroyed || (writable.writableLength ?? 0) > MAX_BUFFERED_BYTES)
        dropped++
      else stream.write(text)
    },
    get dropped() {
      return dropped
    },
  }
}

const brokenStreams = new WeakSet<NodeJS.WritableStream>()
const guardedStreams = new WeakSet<NodeJS.WritableStream>()

function listenForErrors(stream: NodeJS.WritableStream): void {
  if (guardedStreams.has(stream)) return
  guardedStreams.add(stream)
  stream.on('error', () => brokenStreams.add(stream))
}

/** A text logger without request lines, for messages printed before the options are known. */
export const consoleLogger: Logger = createConsoleLogger({ quiet: true })
