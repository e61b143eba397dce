/**
 * OpenAPI 3.2 (#31 §1) on test/descriptions/openapi-3.2/library.yaml: one table that
 * `test/in-process/openapi-3-2.test.ts` runs through `app.request()` and `test/socket/openapi-3-2.test.ts`
 * over a socket (fetch sends QUERY and LINK as they are).
 */
import { fileURLToPath } from 'node:url'

export const LIBRARY_SPEC = fileURLToPath(new URL('../descriptions/openapi-3.2/library.yaml', import.meta.url))

export interface LibraryCase {
  name: string
  method: string
  path: string
  headers?: Record<string, string>
  body?: string
  status: number
  /** The body answered, as text. */
  text?: string
  /** Headers that must be there, with these values. */
  answerHeaders?: Record<string, string>
}

const json = { 'content-type': 'application/json' }

export const libraryCases: LibraryCase[] = [
  {
    name: 'a query operation answers QUERY, its body validated, with the dataValue of its example',
    method: 'QUERY',
    path: '/books',
    headers: json,
    body: '{"title":"Dune"}',
    status: 200,
    text: '[{"id":1,"title":"Dune"}]',
  },
  {
    name: 'a QUERY whose body breaks the schema is refused as any request body is',
    method: 'QUERY',
    path: '/books',
    headers: json,
    body: '{"title":""}',
    status: 422,
  },
  {
    name: 'an example given as serializedValue is served as written',
    method: 'GET',
    path: '/books/2',
    status: 200,
    text: '{"id":2,"title":"Emma"}',
  },
  {
    name: 'a serializedValue under text/plain is the text itself',
    method: 'GET',
    path: '/catalogue?genre=sf',
    status: 200,
    text: 'Dune; Emma',
  },
  {
    name: 'an additionalOperations method (LINK) is routed, its security read (an oauth2 device flow wants a bearer token)',
    method: 'LINK',
    path: '/books/2',
    status: 401,
  },
  {
    name: 'LINK with a bearer token is answered as declared',
    method: 'LINK',
    path: '/books/2',
    headers: { authorization: 'Bearer t' },
    status: 204,
    text: '',
  },
  {
    name: 'a method the path does not declare is 405, Allow naming GET and LINK',
    method: 'DELETE',
    path: '/books/2',
    status: 405,
    answerHeaders: { allow: 'GET, LINK' },
  },
]
