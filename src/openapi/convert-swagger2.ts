import { startupErrors } from '../errors/index.js'

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
    return converted as unknown as Record<string, any>
  } catch (error) {
    throw startupErrors.descriptionSwaggerConversion(path, (error as Error).message)
  }
}
