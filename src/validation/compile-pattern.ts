import { RE2JS } from 're2js'
import { walkSchemas } from '../openapi/walk.js'
import { isPlainObject } from '../internal/plain-object.js'

/** What Ajv needs of a compiled pattern. */
export interface PatternTester {
  test(text: string): boolean
  toString(): string
}

/**
 * A description's `pattern` as a regular expression that runs in linear time. Patterns come from
 * descriptions written by other teams, and a backtracking engine lets one of them (`^(a+)+$`,
 * `([\/\w \.-]*)*`) stall the whole server on a 30-character value, even at start-up while
 * examples are checked. So patterns run on RE2 semantics (`re2js`, pure JavaScript: it installs
 * anywhere) whenever RE2 can read them: that covers `\A` / `\z` anchors of other dialects too.
 * RE2 has no look-arounds and no back-references; such a pattern runs on the JavaScript engine,
 * with the `u` flag Ajv asks for when it is valid so, else without it (a lone `]` or `{`, `\-`
 * outside a class). One that no engine reads matches everything: it is reported at start-up by
 * `findUnusablePatterns` and never stops the description from loading.
 * Each pattern is compiled on its first use: most of a large description's patterns never run.
 */
export function compilePattern(source: string, flags: string): PatternTester {
  let compiled: PatternTester | undefined
  return {
    test: (text) => (compiled ??= compilePatternNow(source, flags) ?? MATCHES_ANYTHING).test(text),
    // Ajv shares one compiled pattern per distinct `toString()`.
    toString: () => `/${source}/${flags}`,
  }
}

/** Ajv asks a regular-expression engine how to name itself in standalone code, which the mock never emits. */
compilePattern.code = 'compilePattern'

/**
 * A pattern compiled at once, on RE2 when it reads it, else on JavaScript's engine over bounded input;
 * `undefined` when no engine reads it (a caller that must not match everything says so itself).
 */
export function compilePatternNow(source: string, flags = 'u'): PatternTester | undefined {
  return linearTime(source) ?? boundedInput(backtracking(source, flags))
}

/** Longest value a pattern RE2 cannot read is run on; a longer one does not match (#12). */
export const MAX_BACKTRACKING_INPUT = 10_000

/**
 * A pattern only JavaScript's backtracking engine reads (look-arounds, back-references) can take
 * exponential time in the value's length: it is run on values of at most MAX_BACKTRACKING_INPUT
 * characters, and a longer value is reported as not matching.
 */
function boundedInput(regex: RegExp | undefined): PatternTester | undefined {
  return (
    regex && {
      test: (text) => text.length <= MAX_BACKTRACKING_INPUT && regex.test(text),
      toString: () => String(regex),
    }
  )
}

function linearTime(source: string): PatternTester | undefined {
  try {
    const re2 = RE2JS.compile(source.replace(/(^|[^\\])\\Z/g, '$1\\z'))
    return { test: (text) => re2.matcher(text).find(), toString: () => source }
  } catch {
    return undefined
  }
}

function backtracking(source: string, flags: string): RegExp | undefined {
  for (const f of [flags, flags.replace('u', '')]) {
    try {
      return new RegExp(source, f)
    } catch {
      // The next flags, or no engine at all.
    }
  }
  return undefined
}

const MATCHES_ANYTHING: PatternTester = { test: () => true, toString: () => '/(?:)/' }

/** The `pattern`s and `patternProperties` keys of a description that no engine accepts, as `#pointer: reason`. */
export function findUnusablePatterns(document: Record<string, any>): string[] {
  const found: string[] = []
  walkSchemas(document, (schema, pointer) => {
    const sources = [
      ...(typeof schema.pattern === 'string' ? [{ source: schema.pattern, at: `${pointer}/pattern` }] : []),
      ...(isPlainObject(schema.patternProperties)
        ? Object.keys(schema.patternProperties).map((source) => ({ source, at: `${pointer}/patternProperties` }))
        : []),
    ]
    for (const { source, at } of sources) {
      // The JavaScript engine answers fastest; RE2 is asked only about what it refuses.
      if (!backtracking(source, 'u') && !linearTime(source))
        found.push(`#${at}: ${JSON.stringify(source)} (${regexError(source)})`)
    }
  })
  return found
}

function regexError(source: string): string {
  try {
    new RegExp(source)
    return 'valid'
  } catch (error) {
    return (error as Error).message
  }
}
