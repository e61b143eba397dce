/**
 * Form validation Prism does, and where the mock differs (#30 §4): `allowReserved` of form fields and
 * Swagger 2.0 `formData`'s `allowEmptyValue`. One table that `test/in-process/form-validation.test.ts`
 * runs through `app.request()` and `test/socket/prism-form-validation.test.ts` over a socket beside
 * Prism 5.14. `prism` is Prism's status where it differs from the mock's, with why.
 */
import { fileURLToPath } from 'node:url'

export const FORM_SPECS = {
  forms: fileURLToPath(new URL('../descriptions/prism-form-validation.yaml', import.meta.url)),
  swagger: fileURLToPath(new URL('../descriptions/prism-form-data-swagger.yaml', import.meta.url)),
}

export interface FormCase {
  name: string
  spec: keyof typeof FORM_SPECS
  path: string
  /** The body, as sent: application/x-www-form-urlencoded. */
  body: string
  status: number
  /** The field a refusal names, in the mock's message. */
  refuses?: string
  prism?: { status: number; why: string }
}

export const formCases: FormCase[] = [
  {
    name: 'a reserved character sent as it is, in a field whose encoding leaves allowReserved false: refused',
    spec: 'forms',
    path: '/form',
    body: 'url=http://example.com/a',
    status: 422,
    refuses: 'body.url',
  },
  {
    name: 'the same value percent-encoded: taken',
    spec: 'forms',
    path: '/form',
    body: `url=${encodeURIComponent('http://example.com/a')}`,
    status: 200,
  },
  {
    name: 'a field whose encoding sets allowReserved: true takes reserved characters',
    spec: 'forms',
    path: '/form',
    body: 'open=http://example.com/a',
    status: 200,
  },
  {
    name: 'a field without an encoding object is not judged for them',
    spec: 'forms',
    path: '/form',
    body: 'plain=http://example.com/a',
    status: 200,
  },
  {
    name: 'a plus sign is a space in a form, not a reserved character',
    spec: 'forms',
    path: '/form',
    body: 'url=fern+and+ivy',
    status: 200,
    prism: { status: 422, why: 'Prism refuses "+", which a form writes for a space (URLSearchParams, HTML forms)' },
  },
  {
    name: 'a colon is reserved (RFC 3986 gen-delims) and refused',
    spec: 'forms',
    path: '/form',
    body: 'url=12:30',
    status: 422,
    refuses: 'body.url',
    prism: { status: 200, why: 'Prism’s list of reserved characters leaves out ":"' },
  },
  {
    name: 'Swagger 2.0: an empty formData value, the parameter not setting allowEmptyValue: refused',
    spec: 'swagger',
    path: '/pets',
    body: 'name=Fern&note=',
    status: 422,
    refuses: 'body.note',
    prism: {
      status: 200,
      why: 'Prism 5.14 reads no allowEmptyValue (nor of the query, which the mock refuses as well)',
    },
  },
  {
    name: 'Swagger 2.0: an empty value where the parameter sets allowEmptyValue: true is taken',
    spec: 'swagger',
    path: '/pets',
    body: 'name=Fern&tag=',
    status: 200,
  },
  {
    name: 'Swagger 2.0: a required formData sent empty is refused, not taken as present',
    spec: 'swagger',
    path: '/pets',
    body: 'name=',
    status: 422,
    refuses: 'body.name',
    prism: { status: 200, why: 'Prism 5.14 reads no allowEmptyValue' },
  },
]
