import type { MockOptions } from './config.js'
import type { Files } from './files.js'
import type { Network } from './network.js'
import type { StateFile } from './state-file.js'

/**
 * What the core (layers 1 to 7 of CONTRIBUTING.md) asks of the platform it runs on, so that it imports
 * no `node:` module and no Node-only package: files, hashing, the network beyond the request it
 * answers, and the state file. `src/node/node-platform.ts` gives Node's; the engine holds it (`Engine.platform`).
 */
export interface Platform {
  files: Files
  crypto: PlatformCrypto
  network: Network
  stateFile: StateFile
  /** Where the package's own description and its fixtures folder are: served when the options name no description. */
  embedded: { spec: string; fixtures: string }
  /**
   * Milliseconds of CPU time the process has used (user and system), the clock of the generation
   * budget (`--generation-ms`): on a busy machine the wall clock ran out before the work did. A
   * platform without one (a browser) leaves it out, and the wall clock is used.
   */
  cpuTime?: () => number
  /**
   * Converts a Swagger 2.0 description (bundled: every `$ref` local) to OpenAPI 3.0. Node's is
   * swagger2openapi, which runs in Node only; a platform without one (a browser) refuses Swagger 2.0.
   */
  swagger2?: Swagger2Converter
  /**
   * json-schema-faker, which only generated bodies need, is loaded when first needed rather than at
   * start-up: a browser fetches it as a chunk of its own (#33). Without (Node), it is loaded at
   * start-up, and no request waits for it.
   */
  loadsOnDemand?: boolean
  /**
   * Generation off the event loop (#34): a body whose making outlasts a slice of the main thread is
   * made again, with the whole budget, in a thread of its own, while other requests are answered.
   * Given the options the engine was made with; a platform without threads (a browser) leaves it out,
   * and generation runs where it starts, within its budget.
   */
  offThread?: (options: MockOptions) => OffThreadGenerator | undefined
}

/** One engine's generator off the main thread (`Platform.offThread`): made on the first body that needs it. */
export interface OffThreadGenerator {
  /** How long a body may take on the main thread before it is handed over, in milliseconds of CPU. */
  readonly sliceMs: number
  /** The body of a response's media type, made with the whole budget; rejects with the `MockError` the making ended in. */
  make(job: GenerationJob): Promise<HandedBody>
  /** Ends the thread (a reload's old engine, the server's close). */
  close(): Promise<void>
}

/** What to make: a declared response's media type, by the operation's index, the response's code and the media type. */
export interface GenerationJob {
  operation: number
  code: string
  mediaType: string
  /** The static body (the same every time) rather than one generated for this request. */
  sampled: boolean
}

/** A body made off the main thread, serialised, and how it breaks its schema if it does. */
export interface HandedBody {
  body: string | undefined
  violations?: ReadonlyArray<{ path: string; message: string }>
}

/** Swagger 2.0 → OpenAPI 3.0, the document converted whole (`Platform.swagger2`); rejects with the converter's reason. */
export type Swagger2Converter = (swagger: Record<string, any>) => Promise<Record<string, any>>

/** Hashing, synchronous, as Node's `node:crypto` does it natively (Web Crypto's digest is asynchronous only). */
export interface PlatformCrypto {
  /** The SHA-256 digest of a text (UTF-8) or bytes. */
  sha256(data: string | Uint8Array): Uint8Array
  /** HMAC-SHA256 of `data` with `secret`, in lower-case hex. */
  hmacSha256Hex(secret: string, data: string | Uint8Array): string
  /** Two digests of the same length compared in constant time. */
  equalDigests(a: Uint8Array, b: Uint8Array): boolean
}
