import { isoTime } from '../internal/iso-time.js'
import type { Violation } from '../errors/index.js'

/** The one place that owns the `[mock]` prefix of everything the mock prints. */
export interface Logger {
  info(message: string): void
  warn(message: string): void
  error(message: string): void
  /**
   * One call per answered request of the described API (admin calls excluded). Without it, no request
   * is logged. The line may be the journal's own record, with more fields than `RequestLine`: read it
   * or copy it, never change it.
   */
  request?(line: RequestLine): void
}

/** What a request line tells: read from the journal record, at the moment the journal records it. */
export interface RequestLine {
  /** Arrival, in ms since the epoch. */
  time: number
  method: string
  path: string
  /** The matched operation; absent for 404 and 405. */
  operation?: string
  /** 0 when a fault sent no response. */
  status: number
  durationMs: number
  scenario: string
  session?: string
  fault?: string
  /** What the request did to the data (`--stateful`): `created plants/1`. */
  data?: string
  /** The request's; with a 2xx or 3xx, violations the mock answered past (`--validate report`). */
  violations: readonly Violation[]
  /** How the answer broke the operation's declared response, when the mock knows it did. */
  responseViolations?: readonly Violation[]
  /** The message of the error the mock answered with, if it answered one. */
  error?: string
  /** What chose a status the request did not earn: `Prefer: code=400`, `__code=400`, `scenario error`. */
  forcedBy?: string
  /** Why the request got its status, as the journal tells it (see `JournalEntry.reason`); absent for a 2xx answered as asked. */
  reason?: string
}

export type LogFormat = 'text' | 'json'

/** A logger that prints (Node's is `src/node/console-logger.ts`): what the command line needs of it at exit. */
export interface ConsoleLogger extends Logger {
  /** Writes the request lines still waiting; call it before `process.exit()`. */
  flush(): void
  /** Lines not written because the reader went away or stopped reading (see `guardedWriter`). */
  droppedLines(): number
}

export const textPrefix = { info: '[mock] ', warn: '[mock] warning: ', error: '[mock] error: ' }

/**
 * `[mock] POST /plants 400 1.8 ms scenario=default: body.name must be a string`; a violation answered
 * past or a response that breaks its declaration: `... 200 ... scenario=default: request breaks the description: ...`.
 */
export function formatRequestText(line: RequestLine): string {
  let text = `[mock] ${line.method} ${line.path} ${line.status} ${formatMs(line.durationMs)} ms scenario=${line.scenario}`
  if (line.session !== undefined) text += ` session=${line.session}`
  if (line.fault !== undefined) text += ` fault=${line.fault}`
  if (line.data !== undefined) text += ` ${line.data}`
  const problem = problemOf(line)
  if (problem) text += `: ${problem}`
  if (line.responseViolations?.length)
    text += `${problem ? ';' : ':'} response breaks the description: ${describe(line.responseViolations)}`
  return `${clean(text)}\n`
}

/**
 * Why the request got its status: what forced it, else a 4xx's violations or error, else a gateway
 * error's (a proxied request's 504 says the upstream did not answer in time; a 500's is in the log
 * already), else violations answered past.
 */
function problemOf(line: RequestLine): string | undefined {
  if (line.forcedBy !== undefined) return `forced by ${line.forcedBy}`
  if (line.status >= 400 && line.status < 500) return firstProblem(line)
  if (line.status >= 502 && line.status <= 504 && line.error !== undefined) return line.error
  if (line.violations.length) return `request breaks the description: ${describe(line.violations)}`
  return undefined
}

/** The first violation, and how many more: a line stays a line. */
function describe(violations: readonly Violation[]): string {
  const [first] = violations
  const more = violations.length - 1
  return `${first!.path} ${first!.message}${more ? ` (+${more} more)` : ''}`
}

/** One JSON object and a newline; the fields of the text line, every violation, why (`reason`), never headers or bodies. */
export function formatRequestJson(line: RequestLine): string {
  return `${JSON.stringify({
    time: isoTime(line.time),
    level: 'info',
    type: 'request',
    method: line.method,
    path: line.path,
    operation: line.operation,
    status: line.status,
    durationMs: line.durationMs,
    scenario: line.scenario,
    session: line.session,
    fault: line.fault,
    data: line.data,
    error: line.error,
    forcedBy: line.forcedBy,
    reason: line.reason,
    violations: line.violations.length ? line.violations : undefined,
    responseViolations: line.responseViolations?.length ? line.responseViolations : undefined,
  })}\n`
}

/** Every violation counted, the first named (`body.name must be a string (+1 more)`); else the error's message. */
function firstProblem({ violations, error }: RequestLine): string | undefined {
  return violations.length ? describe(violations) : error
}

/**
 * `2.0` below 10 ms, `12` from there. Tenths by arithmetic: `toFixed` is a call into V8's C++ for every
 * request line (#19).
 */
function formatMs(ms: number): string {
  if (ms >= 10) return String(Math.round(ms))
  const tenths = Math.round(ms * 10)
  return `${Math.floor(tenths / 10)}.${tenths % 10}`
}

const CONTROL = /[\u0000-\u001f\u007f]/
const CONTROLS = /[\u0000-\u001f\u007f]/g

/**
 * A request can put almost anything into a path or a violation: control characters would forge lines.
 * Looked for first: a replace with a function runs in V8's C++ even when nothing matches (#19).
 */
function clean(text: string): string {
  if (!CONTROL.test(text)) return text
  return text.replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} }
