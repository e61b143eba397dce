/**
 * Node's state file (`--state-file data.json`, `StateFile` in `common/state-file.ts`): stateful mode's
 * records kept across restarts. Read once at start-up (`readStateFile`), written after changes
 * (`createStateWriter`, `state-writer.ts`). A file the mock cannot read as its own is refused, never overwritten.
 */
import { readFile } from 'node:fs/promises'
import { LosslessNumber, isSafeNumber, parse } from 'lossless-json'
import type { StateDocument } from '../common/state-file.js'
import { startupErrors, StartupError } from '../errors/index.js'
import { isPlainObject } from '../internal/plain-object.js'

/**
 * Reads the state file: undefined when it does not exist; a StartupError when it cannot be read
 * (`state_file_unreadable`), or is empty, not JSON or not a StateDocument (`state_file_invalid`),
 * naming the file and what is wrong. Never writes.
 */
export async function readStateFile(path: string): Promise<StateDocument | undefined> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw startupErrors.stateFileUnreadable(path, reasonOf(error))
  }
  const value = parseStateText(path, text)
  const problem = documentProblem(value)
  if (problem !== undefined) throw startupErrors.stateFileInvalid(path, problem)
  const { data, sessions = {} } = value as Omit<StateDocument, 'sessions'> & Partial<StateDocument>
  return { version: 1, data, sessions }
}

/** Integers beyond 2^53 (and numbers a float would round) keep their literal. */
const parseNumber = (text: string): unknown => (isSafeNumber(text) ? Number(text) : new LosslessNumber(text))

function parseStateText(path: string, text: string): unknown {
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  // Never read as "no data": the next write would replace whatever the file was meant to hold.
  if (json.trim() === '') throw startupErrors.stateFileInvalid(path, 'it is empty')
  try {
    return parse(json, null, {
      parseNumber,
      onDuplicateKey: ({ key, position }) => {
        throw startupErrors.stateFileInvalid(
          path,
          `the key "${key}" appears twice in one object (${at(json, position - 1)})`,
        )
      },
    })
  } catch (error) {
    if (error instanceof StartupError) throw error
    // lossless-json recurses: deep enough nesting overflows the stack.
    if (error instanceof RangeError) throw startupErrors.stateFileInvalid(path, 'it nests too deeply to read')
    throw startupErrors.stateFileInvalid(path, `it is not JSON: ${withLineAndColumn(json, (error as Error).message)}`)
  }
}

const FIELDS = ['version', 'data', 'sessions']

/** What keeps `value` from being a StateDocument (`sessions` may be absent), or undefined. */
function documentProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return `it holds ${kindOf(value)}, not an object with version, data and sessions`
  const unknown = Object.keys(value).find((key) => !FIELDS.includes(key))
  if (unknown !== undefined) return `${member('', unknown)} is not a field of a state file (${FIELDS.join(', ')})`
  if (value.version === undefined) return 'version is missing, this mock reads 1'
  if (value.version !== 1) return `version is ${shown(value.version)}, this mock reads 1`
  if (value.data === undefined) return 'data is missing'
  return resourcesProblem('data', value.data) ?? sessionsProblem(value.sessions)
}

function sessionsProblem(sessions: unknown): string | undefined {
  if (sessions === undefined) return undefined
  if (!isPlainObject(sessions)) return `sessions is not an object, it is ${kindOf(sessions)}`
  for (const [name, data] of Object.entries(sessions)) {
    const problem = resourcesProblem(member('sessions', name), data)
    if (problem !== undefined) return problem
  }
  return undefined
}

/** `where` holds resource name → records, each record an object. */
function resourcesProblem(where: string, value: unknown): string | undefined {
  if (!isPlainObject(value)) return `${where} is not an object, it is ${kindOf(value)}`
  for (const [resource, records] of Object.entries(value)) {
    const field = member(where, resource)
    if (!Array.isArray(records)) return `${field} is not an array, it is ${kindOf(records)}`
    const index = records.findIndex((record) => !isPlainObject(record))
    if (index !== -1) return `${field}[${index}] is not an object, it is ${kindOf(records[index])}`
  }
  return undefined
}

/** `data.plants`, `data["a b"]`. */
function member(where: string, key: string): string {
  if (/^[A-Za-z_$][\w$/-]*$/.test(key)) return where ? `${where}.${key}` : key
  return `${where}[${JSON.stringify(key)}]`
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (value instanceof LosslessNumber || typeof value === 'number') return 'a number'
  if (typeof value === 'object') return 'an object'
  return `a ${typeof value}`
}

function shown(value: unknown): string {
  if (value instanceof LosslessNumber) return value.value
  if (typeof value === 'string' || typeof value === 'number') return JSON.stringify(value)
  return kindOf(value)
}

/** lossless-json says `at position 812`; people read line 14, column 3. */
function withLineAndColumn(text: string, message: string): string {
  return message.replace(/at position (\d+)/, (_, position: string) => `at ${at(text, Number(position))}`)
}

function at(text: string, position: number): string {
  const before = text.slice(0, position)
  const line = before.split('\n').length
  return `line ${line}, column ${position - before.lastIndexOf('\n')}`
}

/** `permission denied (EACCES)`; a missing folder by name. */
export function reasonOf(error: unknown, folder?: string): string {
  const { code, message } = (error ?? {}) as NodeJS.ErrnoException
  if (code === 'ENOENT' && folder !== undefined) return `the folder ${folder} does not exist`
  if (code === 'EISDIR') return 'it is a folder'
  const described = typeof code === 'string' ? /^[A-Z0-9_]+: ([^,]+)/.exec(message)?.[1] : undefined
  if (described !== undefined) return `${described} (${code})`
  return typeof message === 'string' ? message : String(error)
}
