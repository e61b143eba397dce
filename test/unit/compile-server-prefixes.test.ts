import { describe, expect, it } from 'vitest'
import { compileServerPrefixes } from '../../src/routing/compile-server-prefixes.js'

describe('compileServerPrefixes', () => {
  it('reads the path of absolute, relative and protocol-relative URLs, longest first, once each', () => {
    const servers = [
      { url: 'https://api.example.com/v1' },
      { url: '/api/v3/' },
      { url: '//host.example.com/api/v3' },
      { url: 'http://x/a?b=c#d' },
    ]
    expect(compileServerPrefixes(servers)).toEqual(['/api/v3', '/v1', '/a'])
  })

  it('fills server variables with their defaults', () => {
    const servers = [
      {
        url: 'https://{region}.example.com/{basePath}/x',
        variables: { region: { default: 'eu' }, basePath: { default: 'api/v3' } },
      },
    ]
    expect(compileServerPrefixes(servers)).toEqual(['/api/v3/x'])
  })

  it('adds nothing for a root or empty path, a variable without a default, or no servers', () => {
    expect(
      compileServerPrefixes([
        { url: 'http://127.0.0.1:4010' },
        { url: 'https://h/' },
        { url: '/' },
        { url: '' },
        { url: '/{v}' },
      ]),
    ).toEqual([])
    expect(compileServerPrefixes(undefined)).toEqual([])
  })
})
