import type { Logger } from '../common/log.js'
import type { Ajv } from '../validation/create-ajv.js'

export interface HeaderContext {
  /** The response view of the description. */
  document: unknown
  /** Validates without coercion: the values of headers declared with `content`. */
  ajv: Ajv
  /**
   * Validates with coercion, as header parameters are: the engine's (it holds the request view, which
   * differs only in readOnly/writeOnly properties, that a header schema does not have). Where not
   * given, one is made on a first header with a schema: adding GitHub's description to an Ajv costs 75 ms.
   */
  coercingAjv?: Ajv
  logger: Logger
}

/** Warnings about a header shared by many responses are told once per description. */
export function warnOnce(context: HeaderContext, key: string, message: string): void {
  const told = memoOf(warned, context.document, () => new Set<string>())
  if (told.has(key)) return
  told.add(key)
  context.logger.warn(message)
}

const warned = new WeakMap<object, Set<string>>()

/** One memo per description, made on first use. */
export function memoOf<T>(memos: WeakMap<object, T>, document: unknown, create: () => T): T {
  const key = document as object
  if (!memos.has(key)) memos.set(key, create())
  return memos.get(key) as T
}
