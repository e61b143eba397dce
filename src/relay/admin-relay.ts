import { ADMIN_PREFIX } from '../common/config.js'
import type { CoverageReport } from '../coverage/coverage-report.js'
import { writeCoverageReport } from '../admin/admin-coverage.js'
import type { JournalEntry } from '../journal/journal-entry.js'
import { isMockError } from '../errors/index.js'
import { readBody } from '../pipeline/read-body.js'
import { JOURNAL_FILTERS, LISTING_PARAMETERS, journalFilterOf, readPage } from '../admin/read-admin-input.js'
import type { LiveMock } from '../admin/mock-handle.js'
import { renderError } from '../responses/render-error.js'
import { type Gather, type WireResponse, fromWireResponse, toWireRequest } from './wire.js'
import type { FetchHandler, RelayLink } from './relay-link.js'
import {
  type FromWorker,
  slotOf,
  mergeByTime,
  mergeCoverage,
  mergeDeliveries,
  mergeScenario,
  mergeStub,
  mergeStubList,
} from './merge-reads.js'
import { mergeVerifyInputs, pageOf } from './merge-reads.js'
import { readVerification, runVerification, verificationAnswer, verifyInputOf } from '../admin/admin-verify.js'
import { sessionOf } from '../admin/read-admin-input.js'
import type { VerifyInput } from '../verify/verify-check.js'

/** Admin writes one worker answers alone: a webhook is sent once, and the data is already shared. */
const ALONE = [/^\/__mock\/webhooks$/, /^\/__mock\/state\/[^/]+(\/reset)?$/]

/** Admin reads answered by every worker and merged, by path. */
function mergerOf(path: string): ((answers: Array<FromWorker<any>>) => unknown) | undefined {
  if (path === '/__mock/deliveries') return mergeDeliveries
  if (path === '/__mock/stubs') return (answers) => mergeStubList(answers.map((a) => a.value))
  if (/^\/__mock\/stubs\/[^/]+$/.test(path)) return (answers) => mergeStub(answers.map((a) => a.value))
  if (path === '/__mock/scenario') return (answers) => mergeScenario(answers.map((a) => a.value))
  if (path === '/__mock/coverage') return mergeCoverage
  return undefined
}

/**
 * The admin API of a worker of `--workers N`, so that it answers as one mock whichever worker a call
 * lands on. A write (scenario, stubs, reset, journal clears, webhook targets) goes to the primary,
 * which applies it on every worker in turn, one write at a time, and answers with this worker's own
 * answer once all have acknowledged: every worker's scenarios and stubs stay the same, and stub ids
 * agree. The journal and the deliveries are gathered from every worker and merged by time; rule hits
 * are summed. Requests to the described API pass straight through, after one prefix check.
 */
export function relayAdmin(link: RelayLink, slot: number) {
  const gather = async (what: Gather): Promise<Array<FromWorker<any>>> =>
    (await link.call({ kind: 'gather', gather: what }, 'an admin read')) as Array<FromWorker<any>>

  return (handle: FetchHandler, live: () => LiveMock): FetchHandler => {
    /** The journal's listing and count: this worker checks the call (host, token, filters), then every worker's entries are merged. */
    const readJournal = async (request: Request, local: Response, count: boolean): Promise<Response> => {
      void local.body?.cancel()
      const { searchParams } = new URL(request.url)
      const query = Object.fromEntries(searchParams)
      const session = request.headers.get('x-mock-session') ?? undefined
      const filter = journalFilterOf(query, session, count ? JOURNAL_FILTERS : LISTING_PARAMETERS)
      const journal = live().state.journal
      if (count) {
        const others = await gather({ what: 'count', filter: { ...filter } })
        return Response.json({ count: others.reduce((sum, { value }) => sum + value, journal.countRequests(filter)) })
      }
      const mine = { slot, value: journal.listRequests(filter) }
      const entries = mergeByTime<JournalEntry>(
        [mine, ...(await gather({ what: 'entries', filter: { ...filter } }))],
        'global',
      )
      return Response.json(pageOf(entries, readPage(query)))
    }

    /**
     * `GET /__mock/requests/{id}`: the entry is the worker's whose slot the id names (`id % 64`), asked
     * after this worker has checked the call; any other worker answers 404 for it.
     */
    const readEntry = async (id: number, request: Request, env: unknown): Promise<Response> => {
      const local = await handle(request, env)
      if (slotOf(id) === slot || local.status !== 404) return local
      const others = (await gather({ what: 'get', request: toWireRequest(request) })) as Array<FromWorker<WireResponse>>
      const owner = others.find((answer) => answer.slot === slotOf(id))
      return owner ? fromWireResponse(owner.value) : local
    }

    const relayRead = async (path: string, request: Request, env: unknown): Promise<Response> => {
      const entry = /^\/__mock\/requests\/([0-9]{1,15})$/.exec(path)
      if (entry) return readEntry(Number(entry[1]), request, env)
      const merge = mergerOf(path)
      const journal = path === `${ADMIN_PREFIX}/requests` || path === `${ADMIN_PREFIX}/requests/count`
      if (!merge && !journal) return handle(request, env)
      const wire = toWireRequest(request)
      const local = await handle(request, env)
      if (local.status !== 200) return local
      if (journal) return readJournal(request, local, path.endsWith('/count'))
      const mine = { slot, value: await local.json() }
      const others = (await gather({ what: 'get', request: wire })) as Array<FromWorker<WireResponse>>
      const answers = others.filter(({ value }) => value.status === 200)
      const values = answers.map(({ slot, value }) => ({
        slot,
        value: JSON.parse(Buffer.from(value.body, 'base64').toString()),
      }))
      return Response.json(merge!([mine, ...values]))
    }

    /**
     * `POST /__mock/verify` reads every worker's journal: this worker checks the call (host, token,
     * the checks as written) by answering it over its own journal, then the checks run again over
     * the journals of all, gathered as the listing gathers them (one verification over the merged
     * entries, rather than one per worker merged: a count or a near miss spans workers).
     */
    const relayVerify = async (request: Request): Promise<Response> => {
      const { engine, state } = live()
      const bytes = request.body ? await readBody({ raw: request }, engine.options.maxBodyBytes) : new Uint8Array()
      // Without the connection (whose body is read already): the admin route reads the bytes given here.
      const local = await handle(
        new Request(request.url, { method: request.method, headers: request.headers, body: bytes }),
        undefined,
      )
      if (local.status !== 200 && local.status !== 409) return local
      void local.body?.cancel()
      const asked = sessionOf(
        new URL(request.url).searchParams.get('session') ?? undefined,
        request.headers.get('x-mock-session') ?? undefined,
      )
      const { checks, session } = readVerification(bytes, engine, asked)
      const others = (await gather({ what: 'verify', session })) as Array<FromWorker<VerifyInput>>
      const input = mergeVerifyInputs([{ slot, value: verifyInputOf(state, session) }, ...others])
      return verificationAnswer(runVerification(engine, checks, input, session))
    }

    /**
     * `POST /__mock/coverage/report` writes the counts of every worker (#29): this worker answers the
     * call first (host, origin, token; its own counts written), then the merged report is written over them.
     */
    const relayCoverageReport = async (request: Request, env: unknown): Promise<Response> => {
      const local = await handle(request, env)
      if (local.status !== 200) return local
      void local.body?.cancel()
      const coverageUrl = new URL(request.url)
      coverageUrl.pathname = `${ADMIN_PREFIX}/coverage`
      coverageUrl.search = ''
      const read = await relayRead(
        coverageUrl.pathname,
        new Request(coverageUrl, { method: 'GET', headers: request.headers }),
        env,
      )
      if (read.status !== 200) return read
      const { engine, state } = live()
      const written = await writeCoverageReport(engine, state, (await read.json()) as CoverageReport)
      return Response.json({ written })
    }

    const relayWrite = async (request: Request): Promise<Response> => {
      const limit = live().engine.options.maxBodyBytes
      // At most `--max-body` bytes; a larger one is answered 413 as the admin API would.
      const body = request.body ? await readBody({ raw: request }, limit) : undefined
      const call = { kind: 'write' as const, request: toWireRequest(request, body) }
      return fromWireResponse((await link.call(call, 'an admin change')) as WireResponse)
    }

    return async (request, env) => {
      const { url } = request
      const pathStart = url.indexOf('/', url.indexOf('://') + 3)
      if (!url.startsWith(ADMIN_PREFIX, pathStart) || !live().engine.options.admin) return handle(request, env)
      const path = new URL(url).pathname
      try {
        if (request.method === 'GET') return await relayRead(path, request, env)
        if (request.method === 'POST' && path === `${ADMIN_PREFIX}/verify`) return await relayVerify(request)
        if (request.method === 'POST' && path === `${ADMIN_PREFIX}/coverage/report`)
          return await relayCoverageReport(request, env)
        if (request.method === 'HEAD' || request.method === 'OPTIONS' || ALONE.some((re) => re.test(path)))
          return await handle(request, env)
        return await relayWrite(request)
      } catch (error) {
        if (!isMockError(error)) throw error
        const { status, headers, body } = renderError(error, undefined, live().engine.errorContext)
        return new Response(body, { status, headers })
      }
    }
  }
}
