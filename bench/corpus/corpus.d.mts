// Types of corpus.mjs, for test/corpus/real-descriptions.test.ts.

export type SourceName = 'apis-guru' | 'readme'

export interface OperationResult {
  /** `METHOD /path` as declared */
  op: string
  /** ok: answered and checked; fail: a problem of the mock; not-buildable / oracle-compile: not judged */
  kind: 'ok' | 'fail' | 'not-buildable' | 'oracle-compile'
  url?: string
  status?: number
  /** null when the operation declares no responses at all */
  declared?: boolean | null
  /** a 2xx where the operation declares one; null when it declares none */
  expected?: boolean | null
  /** undefined when no JSON body with a schema was checked */
  conforming?: boolean
  cause?: 'undeclared-status' | 'rejected' | 'content-type' | 'body' | 'threw'
  problem?: string
  /** the start of the answer's body, for failures */
  sample?: string
}

export interface DescriptionResult {
  /** `source:relative/path` */
  description: string
  source: SourceName
  rel: string
  outcome: 'started' | 'refused' | 'crash' | 'hang' | 'runner-error'
  refused?: string
  crash?: { phase: string; message: string; stack?: string; output?: string }
  hang?: { phase: string; why: string; lastOp?: string }
  runnerError?: string
  startMs?: number
  rssMB?: number
  warnings?: number
  version?: string
  totalOps?: number
  ops: OperationResult[]
  durationMs: number
}

export interface CorpusOptions {
  source?: SourceName | 'all'
  sample?: number
  seed?: number
  jobs?: number
  only?: string
  list?: string
  maxOps?: number
  /** serve each description with stateful mode on (`--stateful`) */
  stateful?: boolean
  /** run `npm run build` first when dist/ is missing or stale (default true) */
  build?: boolean
  /** write .cache/corpus/results-*.json (default true) */
  write?: boolean
  onProgress?: (record: DescriptionResult, done: number, total: number) => void
}

export interface Summary {
  tried: number
  started: number
  refused: number
  crashes: number
  hangs: number
  failedOps: number
  [key: string]: unknown
}

export const SOURCES: Record<SourceName, { spec: string; tarball: string; integrity: string; prefix: string }>
export function readList(
  file: string,
  defaultSource?: SourceName,
): { source: SourceName; rel: string; maxOps?: number }[]
export function runCorpus(
  options?: CorpusOptions,
): Promise<{ options: CorpusOptions; results: DescriptionResult[]; summary: Summary; resultsFile?: string }>
export function formatReport(summary: Summary, options?: { top?: number }): string
export function normalise(text: string): string
