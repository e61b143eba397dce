import type { HeaderSource } from '../common/request.js'
import type { AnswerSource, Stored } from './journal.js'

/**
 * The journal's records, oldest first, kept in columns rather than as objects: numbers in typed
 * arrays, the texts a request brings (its path, query, raw headers, a short body, a short answer made
 * for it) packed into chunks of memory outside the JavaScript heap, and the few references a record
 * holds, mostly to strings and objects every request shares (the method, the operation, the scenario,
 * the answer's static body), in arrays. A record read back (`recordAt`) is made anew from them.
 *
 * Why: a record kept as it came held some fourteen objects of its own, 850 bytes of heap (itself, the
 * header object and each value, the path, the body's text, the answer and its body). Each lived
 * through two young collections, was copied into the old generation, and made every mark-compact
 * longer until the journal let it go. In columns those texts are garbage at once, a record is no
 * object, and a mark-compact's work no longer grows with the journal (#34 §6: BENCHMARKS.md).
 *
 * Texts are packed as UTF-8 and come back as they went, but for a lone surrogate, which becomes U+FFFD
 * as it does on the wire (one code unit for one: the texts after it stay where they were). A body or
 * an answer's body longer than `PACKED_TEXT_LIMIT`, bytes, and headers without the parser's raw list
 * (a fetch `Headers`, under `app.request()`) are kept as they are, with the rarer fields.
 */
export class RecordColumns {
  #length = 0
  /** Slots, a power of two; the records are a ring in them, the oldest at `#head`. */
  #room: number
  #head = 0
  /** `NUMBER` fields a slot: the id, time, duration, and what the record counts for in the byte budget. */
  #numbers: Float64Array
  /** `INT` fields a slot: the status, validity, where the packed texts are and their lengths, the answer's status. */
  #ints: Int32Array
  /** `REF` fields a slot: mostly shared strings and objects, the texts' chunk, the rarer fields. */
  #refs: unknown[]
  #chunks = new TextChunks()

  constructor(room = 64) {
    if ((room & (room - 1)) !== 0) throw new RangeError(`room must be a power of two, not ${room}`)
    this.#room = room
    this.#numbers = new Float64Array(room * NUMBERS)
    this.#ints = new Int32Array(room * INTS)
    this.#refs = new Array<unknown>(room * REFS).fill(undefined)
  }

  get length(): number {
    return this.#length
  }

  /** Keeps `record`, which the journal numbered and bounded already; `size` is what it counts for in the byte budget. */
  push(record: Stored, size: number): void {
    if (this.#length === this.#room) this.#grow()
    const { path, query, body } = record
    const headersText = record.rawHeaders?.join(SEPARATOR)
    const bodyPacked = typeof body === 'string' && body.length <= PACKED_TEXT_LIMIT
    const answer = record.response
    const answerBody = answer?.body
    const answerPacked = typeof answerBody === 'string' && answerBody.length <= PACKED_TEXT_LIMIT
    // One string, one encoding into the chunk: its parts are garbage as soon as it is written.
    let text = path + query
    if (headersText !== undefined) text += headersText
    if (bodyPacked) text += body
    if (answerPacked) text += answerBody
    const chunks = this.#chunks
    const start = text.length === 0 ? 0 : chunks.write(text)

    const slot = this.#slot(this.#length)
    const n = slot * NUMBERS
    const numbers = this.#numbers
    numbers[n + NUMBER.ID] = record.id
    numbers[n + NUMBER.TIME] = record.time
    numbers[n + NUMBER.DURATION] = record.durationMs
    numbers[n + NUMBER.SIZE] = size
    const i = slot * INTS
    const ints = this.#ints
    ints[i + INT.STATUS] = record.status
    ints[i + INT.VALID] = record.valid ? 1 : 0
    ints[i + INT.TEXT_START] = start
    ints[i + INT.PATH_LENGTH] = path.length
    ints[i + INT.QUERY_LENGTH] = query.length
    ints[i + INT.HEADERS_LENGTH] = headersText === undefined ? -1 : headersText.length
    ints[i + INT.BODY_LENGTH] = bodyPacked ? body.length : -1
    ints[i + INT.ANSWER_BODY_LENGTH] = answerPacked ? answerBody.length : -1
    ints[i + INT.ANSWER_STATUS] = answer === undefined ? -1 : answer.status
    ints[i + INT.TEXT_BYTES] = text.length === 0 ? 0 : chunks.written
    const r = slot * REFS
    const refs = this.#refs
    refs[r + REF.METHOD] = record.method
    refs[r + REF.OPERATION] = record.operation
    refs[r + REF.SCENARIO] = record.scenario
    refs[r + REF.VIOLATIONS] = record.violations
    refs[r + REF.CHUNK] = text.length === 0 ? undefined : chunks.chunk
    refs[r + REF.ANSWER_CONTENT_TYPE] = answer?.contentType
    refs[r + REF.ANSWER_STATIC_BODY] = answer?.staticBody
    refs[r + REF.ANSWER_HEADERS] = answer?.headers
    refs[r + REF.RARER] = rarerFields(record, headersText === undefined, bodyPacked, answerPacked)
    this.#length++
  }

  idAt(index: number): number {
    return this.#numbers[this.#slot(index) * NUMBERS + NUMBER.ID]!
  }

  sizeAt(index: number): number {
    return this.#numbers[this.#slot(index) * NUMBERS + NUMBER.SIZE]!
  }

  sessionAt(index: number): string | undefined {
    return (this.#refs[this.#slot(index) * REFS + REF.RARER] as RarerFields | undefined)?.session
  }

  /** The record as it was handed over, its texts read back; `replica` is the journal's, the same for all. */
  recordAt(index: number, replica: string | undefined): Stored {
    const slot = this.#slot(index)
    const n = slot * NUMBERS
    const i = slot * INTS
    const r = slot * REFS
    const ints = this.#ints
    const refs = this.#refs
    const pathLength = ints[i + INT.PATH_LENGTH]!
    const queryLength = ints[i + INT.QUERY_LENGTH]!
    const headersLength = ints[i + INT.HEADERS_LENGTH]!
    const bodyLength = ints[i + INT.BODY_LENGTH]!
    const answerBodyLength = ints[i + INT.ANSWER_BODY_LENGTH]!
    const chunk = refs[r + REF.CHUNK] as Uint8Array | undefined
    const start = ints[i + INT.TEXT_START]!
    const text = chunk === undefined ? '' : decoder.decode(chunk.subarray(start, start + ints[i + INT.TEXT_BYTES]!))
    let read = 0
    const next = (count: number) => text.slice(read, (read += count))
    const rarer = refs[r + REF.RARER] as RarerFields | undefined
    const path = next(pathLength)
    const query = next(queryLength)
    const headers = headersLength === -1 ? rarer!.headers! : headersOfRaw(next(headersLength))
    const body = bodyLength === -1 ? rarer?.body : next(bodyLength)
    const answerStatus = ints[i + INT.ANSWER_STATUS]!
    const response: AnswerSource | undefined =
      answerStatus === -1
        ? undefined
        : {
            status: answerStatus,
            headers: refs[r + REF.ANSWER_HEADERS] as AnswerSource['headers'],
            contentType: refs[r + REF.ANSWER_CONTENT_TYPE] as string | undefined,
            body: answerBodyLength === -1 ? rarer!.answerBody! : next(answerBodyLength),
            staticBody: refs[r + REF.ANSWER_STATIC_BODY] as AnswerSource['staticBody'],
            stream: rarer?.answerStream,
          }
    return {
      id: this.#numbers[n + NUMBER.ID]!,
      time: this.#numbers[n + NUMBER.TIME]!,
      method: refs[r + REF.METHOD] as string,
      path,
      query,
      operation: refs[r + REF.OPERATION] as string | undefined,
      headers,
      body,
      status: ints[i + INT.STATUS]!,
      scenario: refs[r + REF.SCENARIO] as string,
      session: rarer?.session,
      valid: ints[i + INT.VALID] === 1,
      violations: refs[r + REF.VIOLATIONS] as Stored['violations'],
      responseViolations: rarer?.responseViolations,
      fault: rarer?.fault,
      reason: rarer?.reason,
      data: rarer?.data,
      proxied: rarer?.proxied,
      proxy: rarer?.proxy,
      answeredBy: rarer?.answeredBy,
      nearMiss: rarer?.nearMiss,
      response,
      durationMs: this.#numbers[n + NUMBER.DURATION]!,
      replica,
    }
  }

  /** Lets go of the oldest `count` records: their slots are free, and what they pointed to (chunks, rarer fields) let go of. */
  dropFirst(count: number): void {
    const refs = this.#refs
    for (let index = 0; index < count; index++) {
      const r = this.#slot(index) * REFS
      for (let field = 0; field < REFS; field++) refs[r + field] = undefined
    }
    this.#head = this.#slot(count)
    this.#length -= count
  }

  /**
   * Keeps only the records `keep` says yes to, in order, their texts copied into new chunks: a few
   * records kept out of many (one session's, when another's are cleared) would otherwise hold on to
   * every chunk they were written in, memory the byte budget does not count.
   */
  keepOnly(keep: (index: number) => boolean): void {
    const kept: number[] = []
    for (let index = 0; index < this.#length; index++) if (keep(index)) kept.push(index)
    this.#moveTo(this.#room, kept)
    const chunks = new TextChunks()
    for (let slot = 0; slot < this.#length; slot++) {
      const chunk = this.#refs[slot * REFS + REF.CHUNK] as Uint8Array | undefined
      if (chunk === undefined) continue
      const start = this.#ints[slot * INTS + INT.TEXT_START]!
      this.#ints[slot * INTS + INT.TEXT_START] = chunks.copy(
        chunk.subarray(start, start + this.#ints[slot * INTS + INT.TEXT_BYTES]!),
      )
      this.#refs[slot * REFS + REF.CHUNK] = chunks.chunk
    }
    this.#chunks = chunks
  }

  /** The slot of the record at `index`, oldest first. */
  #slot(index: number): number {
    return (this.#head + index) & (this.#room - 1)
  }

  #grow(): void {
    this.#moveTo(
      this.#room * 2,
      Array.from({ length: this.#length }, (_, index) => index),
    )
  }

  /** New columns of `room` slots holding the records at `indexes`, in that order, from the first slot. */
  #moveTo(room: number, indexes: readonly number[]): void {
    const numbers = new Float64Array(room * NUMBERS)
    const ints = new Int32Array(room * INTS)
    const refs = new Array<unknown>(room * REFS).fill(undefined)
    indexes.forEach((index, to) => {
      const from = this.#slot(index)
      numbers.set(this.#numbers.subarray(from * NUMBERS, (from + 1) * NUMBERS), to * NUMBERS)
      ints.set(this.#ints.subarray(from * INTS, (from + 1) * INTS), to * INTS)
      for (let field = 0; field < REFS; field++) refs[to * REFS + field] = this.#refs[from * REFS + field]
    })
    this.#numbers = numbers
    this.#ints = ints
    this.#refs = refs
    this.#room = room
    this.#head = 0
    this.#length = indexes.length
  }
}

/** Where each field of a record is in its slot of each column. */
const NUMBER = { ID: 0, TIME: 1, DURATION: 2, SIZE: 3 } as const
const INT = {
  STATUS: 0,
  VALID: 1,
  /** Where the record's packed texts begin in its chunk, and how many bytes they take. */
  TEXT_START: 2,
  TEXT_BYTES: 9,
  /** Lengths of the packed texts in UTF-16 code units; -1 where the value is kept as it is (the rarer fields). */
  PATH_LENGTH: 3,
  QUERY_LENGTH: 4,
  HEADERS_LENGTH: 5,
  BODY_LENGTH: 6,
  ANSWER_BODY_LENGTH: 7,
  /** -1 where there was no answer. */
  ANSWER_STATUS: 8,
} as const
const REF = {
  METHOD: 0,
  OPERATION: 1,
  SCENARIO: 2,
  VIOLATIONS: 3,
  CHUNK: 4,
  ANSWER_CONTENT_TYPE: 5,
  ANSWER_STATIC_BODY: 6,
  ANSWER_HEADERS: 7,
  RARER: 8,
} as const
const NUMBERS = 4
const INTS = 10
const REFS = 9

/** Texts longer than this (UTF-16 code units) are kept as they are: a copy of each would cost the request more than the collector's work. */
export const PACKED_TEXT_LIMIT = 4096

/** Size of a chunk of packed texts; a record's texts larger than it get a chunk of their own. */
const CHUNK_BYTES = 256 * 1024

/**
 * Separates raw header names and values in a packed header text: a line feed, which Node's parser never
 * lets into either. It answers 400 to a CR or LF in a header, even with `insecureHTTPParser`, and
 * joins a folded line with a space (test/socket/raw-header-separator.test.ts holds it to that). A separator
 * of one byte keeps the text one byte a character, which V8 copies and encodes fastest.
 */
const SEPARATOR = '\n'

/**
 * Where packed texts are written: chunks of UTF-8 outside the heap's objects, filled one after another
 * (typed arrays and `TextEncoder`, so that the journal runs wherever the mock does, a browser too). A
 * chunk is let go of with the last record that points to it.
 */
class TextChunks {
  #chunk: Uint8Array | undefined
  #at = 0
  /** Bytes the last `write` took. */
  written = 0

  /** Encodes `text` (not empty) into `chunk`; returns where it begins, and sets `written`. */
  write(text: string): number {
    // At most three bytes a code unit (a surrogate pair takes four for two).
    const at = this.#reserve(text.length * 3)
    this.written = encoder.encodeInto(text, this.#chunk!.subarray(at)).written
    this.#at += this.written
    return at
  }

  /** Copies packed `bytes` (not empty) into `chunk`; returns where they begin. */
  copy(bytes: Uint8Array): number {
    const at = this.#reserve(bytes.byteLength)
    this.#chunk!.set(bytes, at)
    this.#at += bytes.byteLength
    return at
  }

  /** Where `room` bytes fit: in the chunk being filled, else in a new one. */
  #reserve(room: number): number {
    if (this.#chunk === undefined || this.#at + room > this.#chunk.length) {
      this.#chunk = new Uint8Array(Math.max(CHUNK_BYTES, room))
      this.#at = 0
    }
    return this.#at
  }

  get chunk(): Uint8Array | undefined {
    return this.#chunk
  }
}

const encoder = new TextEncoder()
// A text that begins with U+FEFF keeps it: the decoder would otherwise take it for a byte order mark.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true })

/** A record's fields that most requests leave unset, and what is kept as it is rather than packed; one object, only when there is one. */
interface RarerFields {
  session: string | undefined
  responseViolations: Stored['responseViolations']
  fault: string | undefined
  reason: string | undefined
  data: string | undefined
  proxied: string | undefined
  proxy: string | undefined
  answeredBy: string | undefined
  nearMiss: Stored['nearMiss']
  headers: HeaderSource | undefined
  body: Stored['body']
  answerBody: AnswerSource['body'] | undefined
  answerStream: AnswerSource['stream']
}

function rarerFields(
  record: Stored,
  headersKept: boolean,
  bodyPacked: boolean,
  answerPacked: boolean,
): RarerFields | undefined {
  const body = bodyPacked ? undefined : record.body
  const answerBody = answerPacked ? undefined : record.response?.body
  const answerStream = record.response?.stream
  if (
    !headersKept &&
    body === undefined &&
    answerBody === undefined &&
    answerStream === undefined &&
    record.session === undefined &&
    record.responseViolations === undefined &&
    record.fault === undefined &&
    record.reason === undefined &&
    record.data === undefined &&
    record.proxied === undefined &&
    record.proxy === undefined &&
    record.answeredBy === undefined &&
    record.nearMiss === undefined
  )
    return undefined
  return {
    session: record.session,
    responseViolations: record.responseViolations,
    fault: record.fault,
    reason: record.reason,
    data: record.data,
    proxied: record.proxied,
    proxy: record.proxy,
    answeredBy: record.answeredBy,
    nearMiss: record.nearMiss,
    headers: headersKept ? record.headers : undefined,
    body,
    answerBody,
    answerStream,
  }
}

/**
 * The header object Node's server makes of the raw list (with `joinDuplicateHeaders`): lower-case
 * names, a repeated header's values joined by `, ` (a Cookie's by `; `), Set-Cookie a list.
 */
function headersOfRaw(text: string): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {}
  if (text === '') return headers
  const raw = text.split(SEPARATOR)
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase()
    const value = raw[i + 1]!
    const seen = headers[name]
    if (name === 'set-cookie') headers[name] = Array.isArray(seen) ? [...seen, value] : [value]
    else headers[name] = seen === undefined ? value : `${seen as string}${name === 'cookie' ? '; ' : ', '}${value}`
  }
  return headers
}
