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
  /** Texts the body holds (a violation's path and message). */
  mentions?: string[]
}

const json = { 'content-type': 'application/json' }

const mixed = { 'content-type': 'multipart/mixed; boundary=b' }

/** A multipart/mixed body of these parts, each with its Content-Type (none where `undefined`: text/plain). */
function parts(...list: Array<[string | undefined, string]>): string {
  const each = list.map(([type, text]) => `--b\r\n${type ? `content-type: ${type}\r\n` : ''}\r\n${text}\r\n`)
  return `${each.join('')}--b--\r\n`
}

/** A JSON querystring: the JSON text, percent-encoded, is the whole query string. */
const lookUp = (selector: unknown) => `/loans/lookup?${encodeURIComponent(JSON.stringify(selector))}`

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
    name: 'a form-encoded querystring is read key by key as one object and validated against its schema',
    method: 'GET',
    path: '/catalogue?genre=sf&limit=3',
    status: 200,
    text: 'Dune; Emma',
  },
  {
    name: 'a form-encoded querystring whose property breaks the schema is refused, naming querystring.<name>',
    method: 'GET',
    path: '/catalogue?limit=50',
    status: 422,
    mentions: ['querystring.filter.limit', 'must be <= 10'],
  },
  {
    name: 'a key the querystring schema does not declare is refused',
    method: 'GET',
    path: '/catalogue?genre=sf&colour=green',
    status: 422,
    mentions: ['querystring.filter.colour', 'is not declared by the schema'],
  },
  {
    name: 'a JSON querystring is the percent-encoded JSON text, validated as sent',
    method: 'GET',
    path: lookUp({ ids: [1, 2] }),
    status: 204,
    text: '',
  },
  {
    name: 'a JSON querystring is typed already: a string where an integer is declared is refused, not coerced',
    method: 'GET',
    path: lookUp({ ids: ['1'] }),
    status: 422,
    mentions: ['querystring.selector.ids[0]', 'must be an integer'],
  },
  {
    name: "a JSON querystring's oneOf is judged as oneOf: both branches matching is refused",
    method: 'GET',
    path: lookUp({ ids: [1], isbn: '978-0441013593' }),
    status: 422,
    mentions: ['querystring.selector', 'must match exactly one'],
  },
  {
    name: 'a JSON querystring that is not JSON is refused, saying so',
    method: 'GET',
    path: '/loans/lookup?%7Bids',
    status: 422,
    mentions: ['querystring.selector', 'is not valid JSON'],
  },
  {
    name: 'a JSON querystring that is not percent-encoding is refused, saying so',
    method: 'GET',
    path: '/loans/lookup?%E0%A4%A',
    status: 422,
    mentions: ['querystring.selector', 'is not valid percent-encoding'],
  },
  {
    name: 'a required querystring missing is refused',
    method: 'GET',
    path: '/loans/lookup',
    status: 422,
    mentions: ['querystring.selector', 'is required'],
  },
  {
    name: 'a $ref to a URL that is $self names the description itself',
    method: 'GET',
    path: '/loans',
    status: 200,
    text: '[{"book":{"id":1,"title":"Dune"},"days":14}]',
  },
  {
    name: "a $ref to a URL below $self's folder names the file there, whose schema judges the body",
    method: 'POST',
    path: '/shelves',
    headers: json,
    body: '{"id":7,"name":""}',
    status: 422,
    mentions: ['body.name', 'must NOT have fewer than 1 characters'],
  },
  {
    name: "a $ref'd Media Type Object is followed: its example is the answer",
    method: 'POST',
    path: '/shelves',
    headers: json,
    body: '{"id":7,"name":"Science fiction"}',
    status: 201,
    text: '{"id":7,"name":"Science fiction"}',
  },
  {
    name: 'a multipart/mixed body whose parts are of the types prefixEncoding and itemEncoding name is accepted',
    method: 'POST',
    path: '/returns',
    headers: mixed,
    body: parts(['application/json', '{}'], ['text/plain', 'Dune'], [undefined, 'Emma']),
    status: 204,
  },
  {
    name: 'a multipart/mixed part of another type than its position asks for is refused, named by its index',
    method: 'POST',
    path: '/returns',
    headers: mixed,
    body: parts(['application/json', '{}'], ['text/plain', 'Dune'], ['image/png', 'PNG']),
    status: 422,
    mentions: ['body[2]', 'is image/png; its encoding asks for text/plain'],
  },
  {
    name: 'the first part is judged by prefixEncoding, not itemEncoding',
    method: 'POST',
    path: '/returns',
    headers: mixed,
    body: parts(['text/plain', 'Dune']),
    status: 422,
    mentions: ['body[0]', 'is text/plain; its encoding asks for application/json'],
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
