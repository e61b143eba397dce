import type { Violation } from '../errors/index.js'
import type { RequestData } from '../common/request.js'
import type { HeaderDescription, ParameterDescription } from '../openapi/operations.js'
import { nodeAt } from '../openapi/resolve-ref.js'
import { type Ajv, addDescriptionSchema, compileAt, createAjv } from '../validation/create-ajv.js'
import { fieldPath, toViolations } from '../validation/violations.js'
import { compileParameters, validateParameters } from '../validation/validate-params.js'
import { type HeaderContext, memoOf } from './header-context.js'
import { kindOf } from './serialize-body.js'

export type HeaderValidator = (value: string) => Violation[]

/**
 * How a value of a header breaks its schema, as a client reads it back: a header declared with a
 * schema is split and coerced exactly as a request's header parameter is (`validateParameters`);
 * one declared with JSON `content` is parsed. Compiled once per header declaration: a header shared
 * by a thousand responses (GitHub's `Link`) is one check.
 */
export function headerValidatorOf(context: HeaderContext, declared: HeaderDescription): HeaderValidator {
  if (!declared.schemaPointer) return () => []
  const memo = memoOf(checks, context.document, () => new Map<string, HeaderValidator>())
  const key = `${declared.name.toLowerCase()}\0${declared.explode}\0${declared.shape}\0${declared.mediaType}\0${schemaKeyOf(context.document, declared.schemaPointer)}`
  let check = memo.get(key)
  if (!check)
    memo.set(
      key,
      (check = declared.mediaType === undefined ? parameterCheck(context, declared) : contentCheck(context, declared)),
    )
  return check
}

const checks = new WeakMap<object, Map<string, HeaderValidator>>()

/**
 * Header schemas are small and often written inline the same way (GitHub's hundred `Location: {type:
 * string}`): one written the same, `$ref`s included, is one check, whatever its place.
 */
function schemaKeyOf(document: unknown, pointer: string): string {
  const text = JSON.stringify(nodeAt(document, pointer)) ?? ''
  return text.length <= 1024 ? text : pointer
}

function parameterCheck(context: HeaderContext, declared: HeaderDescription): HeaderValidator {
  const ajv = context.coercingAjv ?? coercingAjvOf(context.document)
  if (!ajv) return () => []
  const name = declared.name.toLowerCase()
  const validator = compileParameters(ajv, [headerParameterOf(declared)])!
  const check: HeaderValidator = (value) => validateParameters(validator, requestWithHeader(name, value), {})
  return unjudgedIfUncompilable(check)
}

/** A JSON `content` header is its JSON text; a text one its text. */
function contentCheck(context: HeaderContext, declared: HeaderDescription): HeaderValidator {
  const path = fieldPath('header', declared.name.toLowerCase())
  const json = kindOf(declared.mediaType!) === 'json'
  const check: HeaderValidator = (value) => {
    const validate = compileAt(context.ajv, declared.schemaPointer!)
    let data: unknown = value
    try {
      if (json) data = JSON.parse(value)
    } catch {
      return [{ path, message: 'is not valid JSON' }]
    }
    return validate(data) ? [] : toViolations(path, validate.errors)
  }
  return unjudgedIfUncompilable(check)
}

/** A header schema Ajv cannot compile judges nothing: such headers were sent unjudged before, and must not stop start-up. */
function unjudgedIfUncompilable(check: HeaderValidator): HeaderValidator {
  try {
    check('')
    return check
  } catch {
    return () => []
  }
}

/** The header as a request's header parameter of the same schema: read back with the same reader and coercion. */
function headerParameterOf(declared: HeaderDescription): ParameterDescription {
  return {
    name: declared.name,
    in: 'header',
    required: true,
    schemaPointer: declared.schemaPointer,
    style: 'simple',
    explode: declared.explode,
    shape: declared.shape,
    properties: [],
    openObject: true,
    allowEmptyValue: false,
    allowReserved: false,
  }
}

function requestWithHeader(name: string, value: string): RequestData {
  return {
    method: 'GET',
    path: '/',
    header: (wanted) => (wanted === name ? value : undefined),
    headerSource: { [name]: value },
    query: () => new URLSearchParams(),
    rawQuery: '',
    cookie: () => undefined,
  }
}

/**
 * Header text is coerced as parameters are (`"5"` is 5): where the context has no coercing Ajv, one of
 * its own over the description, made on a first header with a schema; `undefined` if the description
 * cannot be added (headers then go unjudged).
 */
function coercingAjvOf(document: unknown): Ajv | undefined {
  return memoOf(coercingAjvs, document, () => {
    try {
      return addDescriptionSchema(createAjv({ coerceTypes: true }), document)
    } catch {
      return undefined
    }
  })
}

const coercingAjvs = new WeakMap<object, Ajv | undefined>()
