import { startupErrors } from '../errors/index.js'
import { nodeAt } from './resolve-ref.js'

/**
 * Swagger 2.0 → OpenAPI 3.0 with swagger2openapi, after bundling (so every `$ref` is already
 * local). The converter's own resolver stays off and any fetch it might try is refused.
 * @note Imported on demand: an OpenAPI 3 description never pays for loading the converter.
 */
export async function convertSwagger2(path: string, bundled: Record<string, any>): Promise<Record<string, any>> {
  const { convertObj } = await import('swagger2openapi')
  const refuseDownload = (url: unknown) =>
    Promise.reject(new Error(`${String(url)} would be downloaded; only local files may be referenced`))
  try {
    const converted = await convertObj(
      bundled as never,
      {
        direct: true,
        resolve: false,
        resolveInternal: false,
        // Fix small slips (a missing `type` on a parameter...) the way the converter's CLI does.
        patch: true,
        warnOnly: true,
        fetch: refuseDownload as never,
      } as never,
    )
    keepFormDataEmptyValues(bundled, converted as unknown as Record<string, any>)
    return converted as unknown as Record<string, any>
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
