import { walkSchemas } from '../openapi/walk.js'
import { isPlainObject } from '../internal/plain-object.js'
import { onDemand } from '../internal/on-demand.js'

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
 *
 * RE2 is loaded on demand (`loadLinearEngine`): Node loads it at start-up; a browser only for a
 * description with a pattern or rules with `matches` (#33). A pattern compiled before it is loaded
 * (a stub added in a browser by a test, when neither needed it) runs as RE2 cannot read it would.
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

/** re2js, a linear-time engine in pure JavaScript (150 KB minified: a chunk of its own in a browser). */
const re2js = onDemand('re2js', () => import('re2js'))

/** Loads RE2, once; patterns compiled from then on run in linear time. */
export function loadLinearEngine(): Promise<void> {
  return re2js.load().then(() => undefined)
}

function linearTime(source: string): PatternTester | undefined {
  const RE2JS = re2js.loaded?.RE2JS
  if (!RE2JS) return undefined
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

/** A `pattern` or `patternProperties` key of a description, and where it is. */
export interface PatternSite {
  source: string
  /** The JSON pointer of the `pattern` or of the `patternProperties` object. */
  at: string
}

/** Every `pattern` and `patternProperties` key of a description. */
export function patternsIn(document: Record<string, any>): PatternSite[] {
  const found: PatternSite[] = []
  walkSchemas(document, (schema, pointer) => {
    if (typeof schema.pattern === 'string') found.push({ source: schema.pattern, at: `${pointer}/pattern` })
    if (isPlainObject(schema.patternProperties))
      for (const source of Object.keys(schema.patternProperties))
        found.push({ source, at: `${pointer}/patternProperties` })
  })
  return found
}

/** The patterns no engine accepts, as `#pointer: "source" (reason)`; asked once RE2 is loaded. */
export function findUnusablePatterns(sites: readonly PatternSite[]): string[] {
  return sites
    .filter(({ source }) => !backtracking(source, 'u') && !linearTime(source))
    .map(({ source, at }) => `#${at}: ${JSON.stringify(source)} (${regexError(source)})`)
}

function regexError(source: string): string {
  try {
    new RegExp(source)
    return 'valid'
  } catch (error) {
    return (error as Error).message
  }
}
