import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { resolveOptions } from '../../src/engine/resolve-options.js'
import { nodePlatform } from '../../src/node/node-platform.js'
import { parseByteSize } from '../../src/common/option-values.js'
import { expectStartupErrorThrown } from '../support/startup-error.js'

let dir: string

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plant-store-config-'))
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('resolveOptions: defaults', () => {
  it('serves the embedded description with its embedded fixtures, optional', () => {
    const options = resolveOptions({}, nodePlatform)
    expect(options.spec).toBe(nodePlatform.embedded.spec)
    expect(options.fixtures).toBe(nodePlatform.embedded.fixtures)
    expect(options.fixturesRequired).toBe(false)
  })

  it('points the defaults at the package’s openapi.yaml and fixtures folder', () => {
    expect(nodePlatform.embedded.spec).toBe(resolve(import.meta.dirname, '../../openapi.yaml'))
    expect(nodePlatform.embedded.fixtures).toBe(resolve(import.meta.dirname, '../../fixtures'))
  })

  it('listens on 127.0.0.1:4010 with a 1 MiB body limit, no tokens, static bodies and no debug', () => {
    expect(resolveOptions({}, nodePlatform)).toMatchObject({
      port: 4010,
      host: '127.0.0.1',
      maxBodyBytes: 1048576,
      tokens: [],
      dynamic: false,
      debug: false,
    })
  })

  it('gives generation a budget of 1 MiB and 5 seconds a body (#12)', () => {
    expect(resolveOptions({}, nodePlatform)).toMatchObject({ generationBytes: 1048576, generationMs: 5000 })
    expect(resolveOptions({ generationBytes: 2048, generationMs: 1 }, nodePlatform)).toMatchObject({
      generationBytes: 2048,
      generationMs: 1,
    })
  })

  it('picks a random seed that is a whole number', () => {
    const { seed } = resolveOptions({}, nodePlatform)
    expect(Number.isSafeInteger(seed)).toBe(true)
    expect(seed).toBeGreaterThanOrEqual(0)
  })

  it('keeps options as given', () => {
    const options = resolveOptions(
      {
        host: '0.0.0.0',
        port: 0,
        dynamic: true,
        seed: -7,
        tokens: ['t1'],
        maxBodyBytes: 1,
        debug: true,
      },
      nodePlatform,
    )
    expect(options).toMatchObject({
      host: '0.0.0.0',
      port: 0,
      dynamic: true,
      seed: -7,
      tokens: ['t1'],
      maxBodyBytes: 1,
      debug: true,
    })
  })
})

describe('resolveOptions: spec and fixtures', () => {
  it('makes a relative spec path absolute', () => {
    const spec = join(dir, 'api.yaml')
    expect(resolveOptions({ spec: relative(process.cwd(), spec) }, nodePlatform).spec).toBe(spec)
  })

  it('still takes the embedded fixtures when the embedded spec is named by a relative path', () => {
    expect(resolveOptions({ spec: relative(process.cwd(), nodePlatform.embedded.spec) }, nodePlatform).fixtures).toBe(
      nodePlatform.embedded.fixtures,
    )
  })

  it('takes the fixtures folder beside another spec, optional', async () => {
    await mkdir(join(dir, 'fixtures'))
    const options = resolveOptions({ spec: join(dir, 'api.yaml') }, nodePlatform)
    expect(options.fixtures).toBe(join(dir, 'fixtures'))
    expect(options.fixturesRequired).toBe(false)
  })

  it('takes no fixtures for another spec with no fixtures folder beside it', () => {
    expect(resolveOptions({ spec: join(dir, 'api.yaml') }, nodePlatform).fixtures).toBe('')
  })

  it('never takes the embedded fixtures for another spec', () => {
    expect(resolveOptions({ spec: join(dir, 'api.yaml') }, nodePlatform).fixtures).not.toBe(
      nodePlatform.embedded.fixtures,
    )
  })

  it('requires a fixtures folder that is given, made absolute', () => {
    const options = resolveOptions({ fixtures: relative(process.cwd(), join(dir, 'mine')) }, nodePlatform)
    expect(options.fixtures).toBe(join(dir, 'mine'))
    expect(options.fixturesRequired).toBe(true)
  })

  it('prefers a given fixtures folder over the one beside the spec', async () => {
    await mkdir(join(dir, 'fixtures'))
    await writeFile(join(dir, 'api.yaml'), 'openapi: 3.1.0')
    expect(resolveOptions({ spec: join(dir, 'api.yaml'), fixtures: join(dir, 'other') }, nodePlatform).fixtures).toBe(
      join(dir, 'other'),
    )
  })
})

describe('resolveOptions: checks', () => {
  it('accepts ports 0 and 65535', () => {
    expect(resolveOptions({ port: 0 }, nodePlatform).port).toBe(0)
    expect(resolveOptions({ port: 65535 }, nodePlatform).port).toBe(65535)
  })

  it('refuses ports outside 0 to 65535 and fractions', () => {
    for (const port of [-1, 65536, 80.5, Number.NaN]) {
      expectStartupErrorThrown(() => resolveOptions({ port }, nodePlatform), 'option_bad_port', String(port))
    }
  })

  it('refuses a seed that is not a safe whole number', () => {
    for (const seed of [1.5, 2 ** 53, Number.NaN]) {
      expectStartupErrorThrown(() => resolveOptions({ seed }, nodePlatform), 'option_bad_seed', String(seed))
    }
  })

  it('refuses a body limit below one byte or not whole', () => {
    for (const maxBodyBytes of [0, -1, 1.5, Number.POSITIVE_INFINITY]) {
      expectStartupErrorThrown(
        () => resolveOptions({ maxBodyBytes }, nodePlatform),
        'option_bad_max_body',
        String(maxBodyBytes),
      )
    }
  })

  it('refuses a generation budget below one byte or one millisecond, or not whole, naming the option (#12)', () => {
    for (const generationBytes of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      const error = expectStartupErrorThrown(
        () => resolveOptions({ generationBytes }, nodePlatform),
        'option_bad_generation_bytes',
        String(generationBytes),
      )
      expect(error.message).toContain(`got ${generationBytes}.`)
    }
    for (const generationMs of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      const error = expectStartupErrorThrown(
        () => resolveOptions({ generationMs }, nodePlatform),
        'option_bad_generation_ms',
        String(generationMs),
      )
      expect(error.message).toContain(`got ${generationMs}.`)
    }
  })

  it('validates requests strictly by default, and takes report and off; another word is refused naming the three (#13)', () => {
    expect(resolveOptions({}, nodePlatform).validate).toBe('strict')
    expect(resolveOptions({ validate: 'report' }, nodePlatform).validate).toBe('report')
    expect(resolveOptions({ validate: 'off' }, nodePlatform).validate).toBe('off')
    const error = expectStartupErrorThrown(
      () => resolveOptions({ validate: 'lenient' as never }, nodePlatform),
      'option_bad_validate',
    )
    expect(error.message).toContain('"strict", "report" or "off", got "lenient"')
  })

  it('refuses an empty token', () => {
    expectStartupErrorThrown(() => resolveOptions({ tokens: ['ok', ''] }, nodePlatform), 'option_bad_token')
  })

  it('refuses a token with white space, which no Authorization header could carry', () => {
    for (const token of ['a b', 'a\tb', ' a', 'a\n']) {
      expectStartupErrorThrown(
        () => resolveOptions({ tokens: [token] }, nodePlatform),
        'option_bad_token',
        JSON.stringify(token),
      )
    }
  })
})

describe('parseByteSize', () => {
  it('reads a plain number of bytes', () => {
    expect(parseByteSize('1048576')).toBe(1048576)
    expect(parseByteSize('100b')).toBe(100)
  })

  it('reads binary units in any case', () => {
    expect(parseByteSize('512kb')).toBe(512 * 1024)
    expect(parseByteSize('1mb')).toBe(1024 * 1024)
    expect(parseByteSize('2MiB')).toBe(2 * 1024 * 1024)
    expect(parseByteSize('1G')).toBe(1024 ** 3)
    expect(parseByteSize('3k')).toBe(3072)
  })

  it('reads a fraction of a unit, rounded down to whole bytes', () => {
    expect(parseByteSize('1.5k')).toBe(1536)
    expect(parseByteSize('0.001k')).toBe(1)
  })

  it('allows white space around the number and before the unit', () => {
    expect(parseByteSize(' 10 kb ')).toBe(10240)
  })

  it('refuses text that is not a size', () => {
    for (const text of ['', 'abc', '-1', '1tb', '1 k b', '1e3', 'kb', '1,000']) {
      expectStartupErrorThrown(() => parseByteSize(text), 'option_bad_size', text)
    }
  })
})
