import { base64Bytes, bytesToBase64, concatBytes, utf8Bytes } from '../internal/bytes.js'
import { essenceOf } from '../internal/media-type.js'

/**
 * Bodies of binary media types a client can use (#31 §3): a small valid file of the media type (an
 * `<img>` shows the image, an `<audio>` plays the sound, a PDF reader opens the page), and random
 * bytes for `application/octet-stream` and any binary type without a sample. The images are 1×1,
 * made for this project; the SVG, PDF, WAV, MP3 and ZIP are written here, byte by byte, on first use.
 */

/** Bytes an octet stream has when its schema bounds nothing: enough to look like a file, small to send. */
export const DEFAULT_BINARY_BYTES = 256
/** Bytes a made body has at most, whatever `minLength` asks: `--generation-bytes` bounds generated text the same way. */
export const MAX_BINARY_BYTES = 1024 * 1024

/** A binary body's declared bounds (`minLength` and `maxLength` of a `format: binary` string count bytes). */
export interface ByteBounds {
  minLength?: number
  maxLength?: number
  /**
   * A text body of base64 (`contentEncoding: base64`): the bytes are of this media type (its
   * `contentMediaType`, else an octet stream), written as base64, whose characters the bounds count.
   */
  base64Of?: string
}

/** The bounds of a body's schema, and whether it is base64 of bytes (`contentEncoding: base64`). */
export function byteBoundsOf(schema: unknown): ByteBounds {
  const { minLength, maxLength, contentEncoding, contentMediaType } = (schema ?? {}) as Record<string, unknown>
  const bounds: ByteBounds = {
    minLength: typeof minLength === 'number' ? minLength : undefined,
    maxLength: typeof maxLength === 'number' ? maxLength : undefined,
  }
  if (contentEncoding === 'base64')
    bounds.base64Of = typeof contentMediaType === 'string' ? contentMediaType : 'application/octet-stream'
  return bounds
}

/** A base64 body: the bytes of its `contentMediaType` within the bounds its characters allow, as base64 text. */
export function base64Body(bounds: ByteBounds, random: () => number): string {
  // Every 3 bytes are 4 characters: the byte bounds that keep the text within the character bounds.
  const bytes = binaryBody(
    bounds.base64Of!,
    {
      minLength: bounds.minLength === undefined ? undefined : Math.ceil(bounds.minLength / 4) * 3,
      maxLength: bounds.maxLength === undefined ? undefined : Math.floor(bounds.maxLength / 4) * 3,
    },
    random,
  )
  return bytesToBase64(bytes)
}

/**
 * Whether a media type's bodies are bytes: an image, audio, video or font, a PDF, a ZIP, an octet
 * stream, or any type whose schema says so (`format: binary`, `contentMediaType`, `contentEncoding`).
 */
export function isBinaryMedia(mediaType: string, schema: unknown): boolean {
  const essence = essenceOf(mediaType)
  const [type] = essence.split('/')
  if (type === 'image' || type === 'audio' || type === 'video' || type === 'font') return true
  if (essence in SAMPLES || essence === 'application/octet-stream') return true
  if (typeof schema !== 'object' || schema === null) return false
  const { format, contentMediaType, contentEncoding } = schema as Record<string, unknown>
  return (
    format === 'binary' ||
    contentEncoding === 'base64' ||
    (contentMediaType !== undefined && contentEncoding === undefined)
  )
}

/**
 * A body of the media type within the bounds: its sample where it fits them, else `random` bytes
 * (the octet stream's: `DEFAULT_BINARY_BYTES`, or the bounds' lower end).
 */
export function binaryBody(mediaType: string, bounds: ByteBounds, random: () => number): Uint8Array {
  const sample = SAMPLES[essenceOf(mediaType)]?.()
  const min = Math.min(bounds.minLength ?? 0, MAX_BINARY_BYTES)
  const max = Math.min(bounds.maxLength ?? MAX_BINARY_BYTES, MAX_BINARY_BYTES)
  if (sample && sample.byteLength >= min && sample.byteLength <= max) return sample
  const size = Math.max(min, Math.min(max, DEFAULT_BINARY_BYTES))
  const bytes = new Uint8Array(size)
  for (let i = 0; i < size; i++) bytes[i] = Math.floor(random() * 256)
  return bytes
}

const once = <T>(make: () => T): (() => T) => {
  let made: T | undefined
  return () => (made ??= make())
}

/** The samples by media type, each made on first use. */
const SAMPLES: Record<string, () => Uint8Array> = {
  'image/png': once(() =>
    base64Bytes('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='),
  ),
  'image/gif': once(() => base64Bytes('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==')),
  'image/jpeg': once(() =>
    base64Bytes(
      '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
    ),
  ),
  'image/webp': once(() => base64Bytes('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==')),
  'image/svg+xml': once(() =>
    utf8Bytes('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><rect width="1" height="1"/></svg>\n'),
  ),
  'application/pdf': once(onePagePdf),
  'audio/wav': once(silentWav),
  'audio/x-wav': once(silentWav),
  'audio/wave': once(silentWav),
  'audio/mpeg': once(silentMp3),
  'audio/mp3': once(silentMp3),
  'application/zip': once(emptyZip),
}

/** A PDF of one blank A4 page: four objects, and the cross-reference table their offsets make. */
function onePagePdf(): Uint8Array {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << >> >>',
    '<< /Length 0 >>\nstream\n\nendstream',
  ]
  let text = '%PDF-1.4\n'
  const offsets: number[] = []
  objects.forEach((body, i) => {
    offsets.push(text.length)
    text += `${i + 1} 0 obj\n${body}\nendobj\n`
  })
  const xref = text.length
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`
  for (const offset of offsets) text += `${String(offset).padStart(10, '0')} 00000 n \n`
  text += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return utf8Bytes(text)
}

/** 0.1 s of silence: 16-bit mono PCM at 8 kHz in a RIFF/WAVE file. */
function silentWav(): Uint8Array {
  const samples = 800
  const bytes = new Uint8Array(44 + samples * 2)
  const view = new DataView(bytes.buffer)
  const ascii = (at: number, text: string) => [...text].forEach((c, i) => (bytes[at + i] = c.charCodeAt(0)))
  ascii(0, 'RIFF')
  view.setUint32(4, 36 + samples * 2, true)
  ascii(8, 'WAVE')
  ascii(12, 'fmt ')
  view.setUint32(16, 16, true)
  view.setUint16(20, 1, true) // PCM
  view.setUint16(22, 1, true) // mono
  view.setUint32(24, 8000, true)
  view.setUint32(28, 16000, true)
  view.setUint16(32, 2, true)
  view.setUint16(34, 16, true)
  ascii(36, 'data')
  view.setUint32(40, samples * 2, true)
  return bytes
}

/**
 * Some 0.13 s of silence in MP3: five MPEG-1 Layer III frames (128 kbit/s, 44.1 kHz, mono), each a
 * header and 413 bytes of zeros, which decode to silence.
 */
function silentMp3(): Uint8Array {
  const frame = new Uint8Array(417)
  frame.set([0xff, 0xfb, 0x90, 0xc4])
  return concatBytes([frame, frame, frame, frame, frame], frame.byteLength * 5)
}

/** A ZIP archive with no entries: its end-of-central-directory record alone. */
function emptyZip(): Uint8Array {
  const bytes = new Uint8Array(22)
  bytes.set([0x50, 0x4b, 0x05, 0x06])
  return bytes
}
