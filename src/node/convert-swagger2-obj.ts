import type { Swagger2Converter } from '../common/platform.js'

/**
 * Node's Swagger 2.0 converter (`Platform.swagger2`): swagger2openapi, its own resolver off and any
 * fetch it might try refused.
 * @note Imported on demand: an OpenAPI 3 description never pays for loading the converter.
 */
export const convertSwagger2Obj: Swagger2Converter = async (swagger) => {
  const { convertObj } = await import('swagger2openapi')
  const refuseDownload = (url: unknown) =>
    Promise.reject(new Error(`${String(url)} would be downloaded; only local files may be referenced`))
  const converted = await convertObj(
    swagger as never,
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
  return converted as unknown as Record<string, any>
}
