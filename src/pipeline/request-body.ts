import { exactBodyOf } from '../internal/exact-values.js'
import type { CompiledOperation } from '../engine/compile-operation.js'
import { isMockError } from '../errors/index.js'
import { announcesBody, readBody } from './read-body.js'
import type { Transport } from './request-data.js'
import type { RequestData } from '../common/request.js'
import { type BodyOutcome, selectMediaType, validateBody, validateMissingBody } from '../validation/validate-body.js'
import type { Exchange, PipelineDeps } from './exchange.js'

/** Step 4's body, by validation mode: read (at most `--max-body` bytes, kept for the journal), then judged. */
export interface BodyReading {
  transport: Transport
  exchange: Exchange
  deps: PipelineDeps
  operation: CompiledOperation
  request: RequestData
}

async function readRequestBody({ transport, exchange, deps }: BodyReading): Promise<Uint8Array> {
  exchange.body = await readBody(transport, deps.engine.options.maxBodyBytes)
  return exchange.body
}

/** Strict: a media type the operation does not declare is 415 before a byte is read; the rest are violations. */
export async function validateRequestBody(reading: BodyReading): Promise<BodyOutcome> {
  const { transport, operation, request } = reading
  const body = operation.body!
  const contentType = request.header('content-type')
  const announced = announcesBody(request.header)
  // Under app.request() a body (bytes, a stream) may come with none of the headers that announce
  // one; reading tells, and bytes without a Content-Type then get 415, as they do over a socket.
  const bytes =
    !announced && transport.connection === undefined && transport.raw!.body !== null
      ? await readRequestBody(reading)
      : undefined
  if (!announced && !bytes?.byteLength) return validateMissingBody(body)
  const media = selectMediaType(body, contentType)
  return validateBody(body, media, bytes ?? (await readRequestBody(reading)), contentType)
}

/**
 * `--validate report`: as in strict mode, but a media type the operation does not declare is a
 * violation like any other, and the body (read for the journal) is not parsed.
 */
export async function reportRequestBody(reading: BodyReading): Promise<BodyOutcome> {
  try {
    return await validateRequestBody(reading)
  } catch (error) {
    if (!isMockError(error) || error.kind !== 'unsupported_media_type') throw error
    if (!reading.exchange.body) await readRequestBody(reading)
    const contentType = reading.request.header('content-type')
    const sent = contentType === undefined ? 'missing' : `"${contentType.slice(0, 128)}"`
    return {
      violations: [
        {
          path: 'header["content-type"]',
          message: `is ${sent}, which the operation does not accept; send ${reading.operation.body!.declared.join(' or ')}`,
        },
      ],
    }
  }
}

/**
 * `--validate off`: read (413 still applies) and parsed for templates when its media type is
 * declared, with no schema; only a body that cannot be parsed is reported.
 */
export async function readRequestBodyUnchecked(reading: BodyReading): Promise<BodyOutcome> {
  const body = reading.operation.body!
  const contentType = reading.request.header('content-type')
  const bytes = await readRequestBody(reading)
  const media = findMediaType(body, contentType)
  if (!media || (bytes.byteLength === 0 && media.kind !== 'form')) return { violations: [] }
  return validateBody(body, { ...media, validate: undefined }, bytes, contentType)
}

/** The declared media type of a body, or none where strict validation would answer 415. */
function findMediaType(body: NonNullable<CompiledOperation['body']>, contentType: string | undefined) {
  try {
    return selectMediaType(body, contentType)
  } catch {
    return undefined
  }
}

/** The parsed body again, integers beyond 2^53 read as written (`exactBodyOf`): for records and for conditions that compare one. */
export function exactRequestBody(exchange: Exchange, value: unknown): unknown {
  return exactBodyOf(value, () => new TextDecoder().decode(exchange.body))
}
