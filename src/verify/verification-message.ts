import type { NearMissSeen, RequestSeen, VerifyFailure, VerifyOutcome } from './verify-checks.js'

/**
 * A failed verification as a test runner prints it: each check's expectation and what the journal
 * held, the requests in question and the near misses, one a line; and, when the journal had let go of
 * requests, that the checks did not see them.
 */
export function verificationMessage({ failures, checked, dropped }: VerifyOutcome): string {
  const lines: string[] = []
  const numbered = failures.length > 1 || checked > 1
  if (numbered) lines.push(`Verification failed: ${failures.length} of ${checked} checks.`)
  failures.forEach((failure, index) => lines.push(...failureLines(failure, numbered ? `${index + 1}. ` : '')))
  if (dropped > 0)
    lines.push(
      `Note: the journal had let go of ${dropped} older request${dropped === 1 ? '' : 's'} (it keeps the last --journal-size, 1000 by default, within --journal-bytes): the checks did not see ${dropped === 1 ? 'it' : 'them'}.`,
    )
  return lines.join('\n')
}

function failureLines(failure: VerifyFailure, prefix: string): string[] {
  const lines = [`${prefix}Expected ${failure.expected} ${failure.title}; found ${failure.found}.`]
  const indent = prefix ? '   ' : ''
  if (failure.requests?.length) {
    lines.push(`${indent}${failure.kind === 'requests' ? 'Matched' : 'Found'}:`)
    for (const request of failure.requests) lines.push(`${indent}  - ${requestLine(request)}`)
    more(lines, indent, failure.found, failure.requests.length)
  }
  if (failure.nearMisses?.length) {
    lines.push(`${indent}Near misses (closest first):`)
    for (const miss of failure.nearMisses) lines.push(`${indent}  - ${requestLine(miss, false)}: ${mismatchText(miss)}`)
  } else if (failure.found === 0 && failure.kind === 'requests') {
    lines.push(
      `${indent}No near miss: the journal holds no request${failure.title.includes(' in session ') ? ' of the session' : ''}.`,
    )
  }
  if (failure.stubs?.length) {
    for (const stub of failure.stubs)
      lines.push(
        `${indent}  - stub ${stub.id} (${stub.operation}${stub.session ? `, session ${stub.session}` : ''}) never answered`,
      )
    more(lines, indent, failure.found, failure.stubs.length)
  }
  return lines
}

function more(lines: string[], indent: string, found: number, shown: number): void {
  if (found > shown) lines.push(`${indent}  … and ${found - shown} more`)
}

/** `#3 POST /plants?x=1 → 400 (addPlant): body.name must be a string` */
function requestLine(request: RequestSeen, withViolations = true): string {
  const query = request.query ? `?${request.query}` : ''
  const operation = request.operation === undefined ? ' (no operation)' : ` (${request.operation})`
  const session = request.session === undefined ? '' : ` [session ${request.session}]`
  const violations = withViolations && request.violations?.length ? `: ${request.violations.join('; ')}` : ''
  return `#${request.id} ${request.method} ${request.path}${query} → ${request.status}${operation}${session}${violations}`
}

function mismatchText(miss: NearMissSeen): string {
  return miss.mismatches
    .map(({ condition, actual }) => `${condition} failed, ${actual === undefined ? 'absent' : `was ${actual}`}`)
    .join('; ')
}
