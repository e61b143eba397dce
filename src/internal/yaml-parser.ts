import type { DocumentOptions, ParseOptions, SchemaOptions, ToJSOptions } from 'yaml'
import { type OnDemand, onDemand } from './on-demand.js'

/**
 * The YAML parser, imported for the first file that is not JSON: a browser fetches it only for a
 * YAML file (`plant-store-mock bundle` writes YAML as JSON where it can) (#33). JSON texts are read
 * by `JSON.parse` or lossless-json first, which are faster anyway.
 */
export const yamlParser: OnDemand<typeof import('yaml')> = onDemand('the YAML parser', () => import('yaml'))

/** Whether a text may be JSON, to be tried by a JSON parser before the YAML parser. */
export const looksLikeJson = (text: string): boolean => /^\s*[{[]/.test(text)

/** How a file is read where the defaults do not fit: a JSON parser of its own, and a reviver for the YAML parser's values. */
export interface JsonOrYamlReaders {
  /** @default JSON.parse */
  json?: (text: string) => unknown
  /** As `JSON.parse`'s reviver: each value read, by its key. */
  reviver?: (key: unknown, value: unknown) => unknown
}

/**
 * A file's value, JSON or YAML: a JSON parser first where the text may be JSON (`JSON.parse` is about
 * ten times faster than the YAML parser, #4), else, or when it is not JSON after all, the YAML parser,
 * which reads both and explains what neither reads (it throws).
 */
export async function parseJsonOrYaml(
  text: string,
  options: ParseOptions & DocumentOptions & SchemaOptions & ToJSOptions,
  { json = JSON.parse, reviver }: JsonOrYamlReaders = {},
): Promise<unknown> {
  if (looksLikeJson(text))
    try {
      return json(text)
    } catch {
      // The YAML parser decides.
    }
  const { parse } = await yamlParser.load()
  return reviver ? parse(text, reviver, options) : parse(text, options)
}
