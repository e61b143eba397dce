import { type Violation } from '../errors/index.js'
import { fieldPath } from './violations.js'
import type { FormPlan } from './form-plan.js'

/**
 * The most fields (form pairs or multipart parts) one body may hold. A body past it is refused
 * unread: a 1 MB form holds up to ~350,000 empty pairs, and nothing real sends a hundred thousand.
 */
export const MAX_FORM_FIELDS = 100_000

/** The most brackets decoded in one key (`a[b][c]` has two); a deeper key stays a literal name. */
export const MAX_FORM_DEPTH = 32

/**
 * The values under one name while a body is read: texts sent for the name itself, in order, and
 * the names below it (`scope[type]` puts `type` under `scope`; `[]` is the key `''`). Maps, not
 * objects, so that `__proto__[x]` or `constructor[prototype]` are keys like any other.
 */
interface Slot {
  values: unknown[]
  children?: Map<string, Slot>
}

/**
 * Form fields as an object: a name sent once is its value, a name repeated is an array
 * (`tag=a&tag=b`). Bracketed keys of a property the plan says is nested become objects and arrays
 * (`scope[type]=x`, `expand[0]=a`, `expand[]=a`). Linear in the number of fields and the length of
 * their names: each value is pushed once, each key scanned once.
 */
export function fieldsOf(entries: Iterable<[string, unknown]>, plan?: FormPlan): Record<string, unknown> {
  const root = new Map<string, Slot>()
  // A name sent again right away (`expand[]=a&expand[]=b...`) is not split again.
  let last: { name: string; path: string[] } | undefined
  for (const [name, value] of entries) {
    if (last?.name !== name) last = { name, path: (plan && pathOf(name, plan)) || [name] }
    slotAt(root, last.path).values.push(value)
  }
  // fromEntries defines own properties, so a field named `__proto__` stays a field.
  return Object.fromEntries(Array.from(root, ([name, slot]) => [name, valueOf(slot, plan?.objects.has(name) ?? false)]))
}

/**
 * The keys of a bracketed name (`a[b][0]` → `a`, `b`, `0`), or `undefined` for a name taken as it
 * is: one the schema declares literally, one whose head is not a nested property, a malformed one
 * (`a[b`, `a[b]c`) or one nested deeper than MAX_FORM_DEPTH.
 */
export function pathOf(name: string, plan: FormPlan): string[] | undefined {
  const open = name.indexOf('[')
  if (open <= 0 || plan.declared.has(name)) return undefined
  const path = [name.slice(0, open)]
  if (!plan.nested.has(path[0]!)) return undefined
  for (let at = open; at < name.length;) {
    if (name.charCodeAt(at) !== 0x5b /* [ */ || path.length > MAX_FORM_DEPTH) return undefined
    // The nearest `]`: segments never overlap, so the scan stays linear in the name.
    const close = name.indexOf(']', at + 1)
    if (close === -1) return undefined
    path.push(name.slice(at + 1, close))
    at = close + 1
  }
  return path
}

function slotAt(root: Map<string, Slot>, path: string[]): Slot {
  let level = root
  for (let i = 0; ; i++) {
    let slot = level.get(path[i]!)
    if (!slot) level.set(path[i]!, (slot = { values: [] }))
    if (i === path.length - 1) return slot
    level = slot.children ??= new Map()
  }
}

/**
 * A slot as a value. Under brackets it is an array when every key is an index or `[]`, else an
 * object; `objectOnly` (a property that holds objects) makes `metadata[0]` a key. A name sent both
 * as text and with brackets keeps both, as an array, so that the schema reports it.
 */
function valueOf(slot: Slot, objectOnly = false): unknown {
  const children = slot.children?.size ? slot.children : undefined
  if (!children) return slot.values.length === 1 ? slot.values[0] : slot.values
  const nested = !objectOnly && isArrayLike(children) ? itemsOf(children) : objectOf(children)
  if (slot.values.length === 0) return nested
  return Array.isArray(nested) ? [...slot.values, ...nested] : [...slot.values, nested]
}

function objectOf(children: Map<string, Slot>): Record<string, unknown> {
  return Object.fromEntries(Array.from(children, ([key, child]) => [key, valueOf(child)]))
}

/**
 * Items in index order, then those sent as `[]` in arrival order. Indexes are only sorted, never
 * used as positions: `expand[999999999]=a` is a one-item array, not a billion holes.
 */
function itemsOf(children: Map<string, Slot>): unknown[] {
  const indexes = [...children.keys()].filter((key) => key !== '').sort(byIndex)
  const items = indexes.map((key) => valueOf(children.get(key)!))
  const appended = children.get('')
  if (!appended) return items
  const value = valueOf(appended)
  // `expand[]=a&expand[]=b` are two items, not one array item.
  return appended.children?.size || appended.values.length < 2 ? [...items, value] : [...items, ...(value as unknown[])]
}

function isArrayLike(children: Map<string, Slot>): boolean {
  for (const key of children.keys()) if (key !== '' && !INDEX.test(key)) return false
  return true
}

const INDEX = /^(?:0|[1-9]\d*)$/

/** Numeric order of index texts of any length, without turning them into (imprecise) numbers. */
function byIndex(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0)
}

/**
 * Parses the value of a field the plan (or its part's Content-Type) says is JSON. A value that is
 * not JSON comes back as a violation naming the field, to be reported instead of the schema's
 * complaints about the text.
 */
export function parseJsonField(name: string, text: string): { value: unknown } | { violation: Violation } {
  try {
    return { value: JSON.parse(text) }
  } catch (error) {
    return { violation: { path: fieldPath('body', name), message: `is not valid JSON (${(error as Error).message})` } }
  }
}

/** OpenAPI sends an array of objects as one part per item: a property sent once with one object is a one-item array. */
export function wrapLoneItems(fields: Record<string, unknown>, plan: FormPlan | undefined): void {
  for (const name of plan?.jsonArrays ?? []) {
    if (Object.hasOwn(fields, name) && !Array.isArray(fields[name])) fields[name] = [fields[name]]
  }
}

/** The schema's violations except those about fields already reported as unparsable. */
export function withoutFieldsReported(violations: Violation[], reported: Violation[]): Violation[] {
  if (reported.length === 0) return violations
  const under = (path: string, field: string) =>
    path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`)
  return [...reported, ...violations.filter((v) => !reported.some((r) => under(v.path, r.path)))]
}
