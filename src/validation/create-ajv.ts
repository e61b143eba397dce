import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { startupErrors } from '../errors/index.js'
import { nodeAt, pointerTokens } from '../openapi/resolve-ref.js'
import { compilePattern } from './compile-pattern.js'
import { type ExactLiterals, isAmbiguousInt64, isExactInt64Literal, isInt64Number } from './exact-integers.js'
import { BASE64 } from '../internal/base64.js'

export type { ErrorObject }
export type Ajv = Ajv2020

/** Added at start-up next to every `format: int64`, so the validator can settle the ±2^63 edge exactly. */
export const EXACT_INT64_KEYWORD = 'x-mock-exact-int64'

/**
 * One Ajv for a description. OpenAPI 3.1 schemas are JSON Schema 2020-12; 3.0 schemas are
 * rewritten to it at load time (see `normalize-schemas.ts`).
 */
export function createAjv({
  coerceTypes = false,
  verbose = false,
}: { coerceTypes?: boolean; verbose?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({
    // Parameters arrive as text: `"5"` must count as 5, and a lone value as a one-item array.
    coerceTypes: coerceTypes ? 'array' : false,
    // Descriptions carry OpenAPI keywords (example, xml, discriminator...) that are not JSON Schema.
    strict: false,
    // ...but `strict: false` would also let Infinity and NaN pass as numbers (1e400 parses to Infinity).
    strictNumbers: true,
    allErrors: true,
    // Errors that carry the schema they failed on, to mend a generated body from (`mendGenerated`).
    // Only that Ajv has them: they cost 15 % of start-up and tens of megabytes on a large description.
    verbose,
    // A body without an optional `constructor` or `toString` field must not be judged on Object.prototype's.
    ownProperties: true,
    passContext: true,
    logger: false,
    // The description is added whole as one "schema" so that refs resolve: checking it against the
    // JSON Schema meta-schema checks nothing (its keys are not keywords) and cost 20 ms a start-up (#4).
    // Each compiled subschema is still checked as Ajv generates its code.
    validateSchema: false,
    code: { regExp: compilePattern },
  })
  addFormats.default(ajv)
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n <= 2 ** 31 - 1,
  })
  ajv.addFormat('int64', { type: 'number', validate: isInt64Number })
  for (const name of ['float', 'double']) ajv.addFormat(name, { type: 'number', validate: Number.isFinite })
  for (const name of ['binary', 'password']) ajv.addFormat(name, true)
  ajv.addFormat('byte', BASE64)
  ajv.addKeyword({
    keyword: EXACT_INT64_KEYWORD,
    type: 'number',
    schemaType: 'boolean',
    errors: false,
    validate(
      this: ExactLiterals | undefined,
      _enabled: boolean,
      value: number,
      _parent: unknown,
      data?: { instancePath: string },
    ) {
      if (!isAmbiguousInt64(value)) return true
      const literal = this?.literalAt?.(data?.instancePath ?? '')
      return literal === undefined || isExactInt64Literal(literal)
    },
  })
  return ajv
}

/**
 * Marks every int64 schema for the exact check. Examples are data and stay as written.
 * @note Not `walkSchemas`, on purpose (as `collectRefs` is not): a `$ref` may point into an extension
 * (`x-components`, `x-defs`, as some published descriptions keep shared schemas) that the walk over
 * schema positions never enters, and Ajv compiles what it points at all the same. It also takes a bare
 * schema or media type, as the tests give it.
 */
export function markExactIntegers(node: unknown): void {
  if (typeof node !== 'object' || node === null) return
  if (Array.isArray(node)) return node.forEach(markExactIntegers)
  const schema = node as Record<string, unknown>
  if (schema.format === 'int64') schema[EXACT_INT64_KEYWORD] = true
  for (const [key, value] of Object.entries(schema)) {
    if (key !== 'example' && key !== 'examples') markExactIntegers(value)
  }
}

const descriptions = new WeakMap<Ajv2020, { document: unknown; compiled: Map<string, ValidateFunction> }>()

/** The description an Ajv was given by `addDescriptionSchema`. */
export function descriptionOf(ajv: Ajv2020): unknown {
  return descriptions.get(ajv)?.document
}

/** Adds the whole description as one schema (`mock:spec`), so that `$ref`s inside it resolve. */
export function addDescriptionSchema(ajv: Ajv2020, document: unknown): Ajv2020 {
  ajv.addSchema(document as object, 'mock:spec')
  descriptions.set(ajv, { document, compiled: new Map() })
  return ajv
}

/**
 * Compiles the schema at a JSON pointer of the description. A schema that is only a `$ref` is
 * compiled at its target, once: the 400 `Error` of five hundred operations is one validator, not
 * five hundred (start-up with 1000 operations, #4).
 */
export function compileAt(ajv: Ajv2020, pointer: string): ValidateFunction {
  const description = descriptions.get(ajv)
  const target = description ? schemaRootOf(description.document, pointer) : pointer
  const cached = description?.compiled.get(target)
  if (cached) return cached
  try {
    const validate = ajv.getSchema(`mock:spec#${target}`)
    if (!validate) throw new Error('no schema there')
    description?.compiled.set(target, validate)
    return validate
  } catch (error) {
    throw startupErrors.schemaAt(decodePointer(pointer), (error as Error).message)
  }
}

/**
 * A validator compiled when first called. Compiling every validator of a large description was
 * most of its start-up (autotask's 2,958 operations: parameters alone were 57 % of it, #11), while a
 * test run calls a few operations. The first call pays for the compile (a few milliseconds); a
 * schema that cannot be compiled then fails that request, not start-up.
 */
export function compileOnFirstUse(compile: () => ValidateFunction): ValidateFunction {
  let compiled: ValidateFunction | undefined
  const ensure = () => (compiled ??= compile())
  const validate = function (this: unknown, data: unknown): boolean {
    const valid = ensure().call(this, data) as boolean
    validate.errors = compiled!.errors
    return valid
  } as ValidateFunction & { compileNow?: () => unknown }
  validate.compileNow = ensure
  return validate
}

/**
 * Compiles a validator made by `compileOnFirstUse` now, if it is not yet; any other is left as it
 * is. For callers that time what the validator does, and not its compile: generating a body has a
 * deadline, and the first body of a Stripe response spent seconds compiling its validators (#12).
 */
export function compileValidatorNow(validate: ValidateFunction): void {
  ;(validate as { compileNow?: () => unknown }).compileNow?.()
}

/**
 * The pointer `compileAt` compiles for a schema pointer: schemas that are nothing but a local `$ref`
 * (annotations aside) are followed to the schema they name.
 */
export function schemaRootOf(document: unknown, pointer: string): string {
  for (let hops = 0; hops < 32; hops++) {
    const node = nodeAt(document, pointer)
    if (!node || typeof node.$ref !== 'string' || !node.$ref.startsWith('#')) return pointer
    if (Object.keys(node).some((key) => !REF_SIBLINGS_IGNORED.has(key))) return pointer
    pointer = node.$ref.slice(1)
  }
  return pointer
}

/** Siblings of `$ref` that change no validation (3.1 lets `$ref` have siblings; these are annotations). */
const REF_SIBLINGS_IGNORED = new Set(['$ref', 'description', 'summary', 'title', 'example', 'examples', 'deprecated'])

export function decodePointer(pointer: string): string {
  return pointerTokens(pointer).join(' > ')
}

/**
 * Adds a description's document to an Ajv (`addDescriptionSchema`), or stops start-up naming why.
 * @param spec its path, for the message, and the document (or a view of it) to add
 */
export function addDescription(ajv: Ajv, spec: { path: string; document: unknown }): Ajv {
  try {
    return addDescriptionSchema(ajv, spec.document)
  } catch (error) {
    // Ajv reads `$id` in every object of the document, examples included: the same example in a
    // request and a response (akeneo.com) is "more than one schema". The validator then gets a
    // copy without `$id` in example data; examples themselves are served as written.
    if (/resolves to more than one schema/.test((error as Error).message)) {
      try {
        return addDescriptionSchema(ajv.removeSchema('mock:spec'), withoutIdsInExamples(spec.document))
      } catch {
        // Reported below with the first message.
      }
    }
    throw startupErrors.schemasOf(spec.path, (error as Error).message)
  }
}

/** The document with example data copied without `$id` keys; everything else shared. */
function withoutIdsInExamples(node: any, inData = false): any {
  if (typeof node !== 'object' || node === null) return node
  if (Array.isArray(node)) {
    const items = node.map((item) => withoutIdsInExamples(item, inData))
    return items.some((item, index) => item !== node[index]) ? items : node
  }
  let copy: Record<string, any> | undefined
  for (const [key, value] of Object.entries(node)) {
    const data = inData || key === 'example' || key === 'examples' || key === 'default'
    const next = inData && key === '$id' ? undefined : withoutIdsInExamples(value, data)
    if (next !== value) (copy ??= { ...node })[key] = next
    if (next === undefined && copy) delete copy[key]
  }
  return copy ?? node
}
