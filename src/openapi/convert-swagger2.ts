import { startupErrors } from '../errors/index.js'
import type { Swagger2Converter } from '../common/platform.js'
import { nodeAt } from './resolve-ref.js'

/**
 * Swagger 2.0 → OpenAPI 3.0, after bundling (so every `$ref` is already local), by the platform's
 * converter (`Platform.swagger2`: swagger2openapi, which runs in Node only, #33); where there is none
 * (a browser), a Swagger 2.0 description is refused with what to do.
 */
export async function convertSwagger2(
  path: string,
  bundled: Record<string, any>,
  convert: Swagger2Converter | undefined,
): Promise<Record<string, any>> {
  if (!convert)
    throw startupErrors.descriptionSwaggerConversion(
      path,
      'Swagger 2.0 is converted by swagger2openapi, which needs Node; convert the description to OpenAPI 3 first (npx swagger2openapi)',
    )
  try {
    const converted = await convert(bundled)
    keepFormDataEmptyValues(bundled, converted)
    return converted
  } catch (error) {
    throw startupErrors.descriptionSwaggerConversion(path, (error as Error).message)
  }
}

/**
 * Where the conversion keeps, beside a form media type, each `formData` parameter's `allowEmptyValue`
 * (name → boolean): OpenAPI 3 has no place for it in a body.
 */
export const FORM_DATA_EMPTY_VALUES = 'x-formData-allowEmptyValue'

const FORM_MEDIA_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data']
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch']

/**
 * The converter turns `formData` parameters into a form body's properties and drops their
 * `allowEmptyValue`, which Swagger 2.0 makes false unless set: each is kept beside the form media
 * types under `FORM_DATA_EMPTY_VALUES` (name → boolean), where validation reads it (#30).
 */
function keepFormDataEmptyValues(swagger: Record<string, any>, converted: Record<string, any>): void {
  for (const [path, item] of Object.entries<Record<string, any>>(swagger.paths ?? {})) {
    if (typeof item !== 'object' || item === null) continue
    for (const method of METHODS) {
      const operation = item[method]
      if (typeof operation !== 'object' || operation === null) continue
      const emptyValues: Record<string, boolean> = {}
      // Path-level parameters first, the operation's over them.
      for (const parameter of [...listOf(item.parameters), ...listOf(operation.parameters)]) {
        const read = resolveParameter(swagger, parameter)
        if (read?.in === 'formData' && typeof read.name === 'string')
          emptyValues[read.name] = read.allowEmptyValue === true
      }
      if (Object.keys(emptyValues).length === 0) continue
      const content = converted.paths?.[path]?.[method]?.requestBody?.content
      for (const type of FORM_MEDIA_TYPES)
        if (typeof content?.[type] === 'object' && content[type] !== null)
          content[type][FORM_DATA_EMPTY_VALUES] = emptyValues
    }
  }
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

/** A parameter, or the one its local `$ref` names (the description is bundled: every `$ref` is local). */
function resolveParameter(swagger: Record<string, any>, parameter: any): Record<string, any> | undefined {
  const ref = parameter?.$ref
  const found = typeof ref === 'string' && ref.startsWith('#/') ? nodeAt(swagger, ref.slice(1)) : parameter
  return typeof found === 'object' && found !== null ? found : undefined
}
