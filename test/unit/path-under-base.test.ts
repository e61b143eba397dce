import { describe, expect, it } from 'vitest'
import { checkBase, pathUnderBase } from '../../src/vite-plugin/path-under-base.js'

describe('the Vite plugin’s base (#33)', () => {
  it('takes the base off a path under it, the query kept', () => {
    expect(pathUnderBase('/api/plants', '/api')).toBe('/plants')
    expect(pathUnderBase('/api/plants?limit=2', '/api')).toBe('/plants?limit=2')
    expect(pathUnderBase('/api', '/api')).toBe('/')
    expect(pathUnderBase('/api?x=1', '/api')).toBe('/?x=1')
    expect(pathUnderBase('/api/__mock/', '/api')).toBe('/__mock/')
    expect(pathUnderBase('/v1/api/plants', '/v1/api')).toBe('/plants')
  })

  it('leaves a path that only starts like the base, or another path, to Vite', () => {
    expect(pathUnderBase('/apiary', '/api')).toBeUndefined()
    expect(pathUnderBase('/api.json', '/api')).toBeUndefined()
    expect(pathUnderBase('/', '/api')).toBeUndefined()
    expect(pathUnderBase('/src/main.ts', '/api')).toBeUndefined()
  })

  it('reads a base with or without its slashes, and refuses the root', () => {
    expect(checkBase('/api')).toBe('/api')
    expect(checkBase('api/')).toBe('/api')
    expect(checkBase('/v1/api/')).toBe('/v1/api')
    for (const base of ['/', '', '/api?x', '/a b'])
      expect(() => checkBase(base), base).toThrow(
        expect.objectContaining({
          code: 'option_bad_base',
          message: expect.stringMatching(/base must be a path that only the mock answers under/),
        }),
      )
  })
})
