/** Sessions with targets of their own, at most; the least recently set are forgotten first. */
const MAX_SESSIONS = 10_000
/** Targets without a session, under this key (a session name is never empty). */
const NO_SESSION = ''
/** The key of a session's target for every webhook. */
export const EVERY_WEBHOOK = '*'

/**
 * Where webhooks go, set at run time (`PUT /__mock/webhooks/targets`), per session: each CI worker
 * gives its own receiver. A webhook name, or `*` for every webhook. Emptied by reset.
 */
export class WebhookTargets {
  private readonly bySession = new Map<string, Map<string, string>>()

  /** Replaces the session's targets (or those without one). */
  set(session: string | undefined, targets: ReadonlyMap<string, string>): void {
    const key = session ?? NO_SESSION
    this.bySession.delete(key)
    if (this.bySession.size >= MAX_SESSIONS) this.bySession.delete(this.bySession.keys().next().value!)
    this.bySession.set(key, new Map(targets))
  }

  /** The session's targets, by webhook name. */
  of(session: string | undefined): ReadonlyMap<string, string> {
    return this.bySession.get(session ?? NO_SESSION) ?? EMPTY
  }

  /** Where the session sends this webhook: its own target for the name, else its `*` one. */
  targetOf(session: string | undefined, name: string): string | undefined {
    const targets = this.of(session)
    return targets.get(name) ?? targets.get(EVERY_WEBHOOK)
  }

  reset(session?: string): void {
    if (session === undefined) this.bySession.clear()
    else this.bySession.delete(session)
  }
}

const EMPTY: ReadonlyMap<string, string> = new Map()
