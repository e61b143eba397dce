import { LosslessNumber, parse as parseLossless } from 'lossless-json'
import { pointerTokens } from '../openapi/resolve-ref.js'

/**
 * `JSON.parse` rounds integers beyond 2^53, so `9223372036854775807` (the largest int64) and
 * `9223372036854775808` (one too many) both arrive as 2^63. When a validator meets a value that
 * rounding could have produced, it asks for the literal as written and decides on that.
 */
export interface ExactLiterals {
  literalAt(instancePath: string): string | undefined
}

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const INT64_EDGE = 2 ** 63

/** Only ±2^63 is ambiguous after rounding: every other float is decided by comparing floats. */
export function isAmbiguousInt64(value: number): boolean {
  return value === INT64_EDGE || value === -INT64_EDGE
}

/** The float range check; exact only away from ±2^63 (see `isExactInt64Literal`). */
export function isInt64Number(value: number): boolean {
  return Number.isInteger(value) && value >= -INT64_EDGE && value <= INT64_EDGE
}

export function isExactInt64Literal(literal: string): boolean {
  const exact = integerValueOf(literal)
  return exact !== undefined && exact >= INT64_MIN && exact <= INT64_MAX
}

/** The exact value of a JSON number literal if it is a whole number, e.g. `9.2e18` or `1.0`. */
function integerValueOf(literal: string): bigint | undefined {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal)
  if (!match) return undefined
  const [, sign, whole, fraction = '', exponentText = '0'] = match
  const exponent = Number(exponentText) - fraction.length
  // Far beyond int64 either way; avoids building huge powers of ten for literals like 1e400.
  if (exponent > 40) return sign ? INT64_MIN - 1n : INT64_MAX + 1n
  let digits = BigInt(`${whole}${fraction}`)
  if (exponent >= 0) digits *= 10n ** BigInt(exponent)
  else {
    const divisor = 10n ** BigInt(-exponent)
    if (digits % divisor !== 0n) return undefined
    digits /= divisor
  }
  return sign ? -digits : digits
}

/** Literals of a JSON text, parsed only if a validator asks (which only an edge value makes it do). */
export function jsonLiterals(text: string): ExactLiterals {
  let tree: unknown
  let parsed = false
  return {
    literalAt(instancePath) {
      if (!parsed) {
        parsed = true
        try {
          // Duplicate keys: the last one wins, as with JSON.parse (lossless-json throws by default).
          tree = parseLossless(text, undefined, { onDuplicateKey: ({ newValue }) => newValue })
        } catch {
          // lossless-json recurses, so very deep nesting overflows the stack. The edge value cannot
          // be read exactly then: answer with no literal that passes, so that the value is refused.
          tree = undefined
        }
      }
      if (tree === undefined) return ''
      const node = valueAt(tree, instancePath)
      return node instanceof LosslessNumber ? node.value : undefined
    },
  }
}

/** Literals of parameters: the strings as they came in the URL or headers. */
export function rawLiterals(raw: unknown): ExactLiterals {
  return {
    literalAt(instancePath) {
      const node = valueAt(raw, instancePath)
      return typeof node === 'string' ? node : undefined
    },
  }
}

function valueAt(root: unknown, instancePath: string): unknown {
  let node: any = root
  for (const token of pointerTokens(instancePath)) {
    if (node === null || typeof node !== 'object') return undefined
    node = node[token]
  }
  return node
}
