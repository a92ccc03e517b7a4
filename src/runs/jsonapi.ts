/**
 * The little of JSON:API the run service needs: single and list documents, refs, pagination, and a
 * field record's relationships (the fields flagged `relationship`, src/core/fields.ts).
 */
import type { FieldSet } from "../core/fields";
import type { Props } from "../core/props";
import type { HttpClient, RequestSpec } from "../http";

export interface Ref {
  id: string;
  type: string;
}

export interface JsonApiResource {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data?: Ref | Ref[] | null }>;
  links?: Record<string, string>;
}

interface Pagination {
  "current-page"?: number;
  "next-page"?: number | null;
  "total-pages"?: number;
  "total-count"?: number;
}

function fail(what: string): never {
  throw new Error(`unexpected response from the run service: ${what}`);
}

export function one(body: unknown): JsonApiResource {
  const data = (body as { data?: JsonApiResource } | undefined)?.data;
  if (!data || typeof data !== "object" || Array.isArray(data) || typeof data.id !== "string") fail("no data object with an id");
  return { ...data, attributes: data.attributes ?? {} };
}

export function many(body: unknown): { data: JsonApiResource[]; pagination?: Pagination } {
  const doc = body as { data?: JsonApiResource[]; meta?: { pagination?: Pagination } } | undefined;
  if (!doc || !Array.isArray(doc.data)) fail("no data array");
  return { data: doc.data.map((d) => ({ ...d, attributes: d.attributes ?? {} })), pagination: doc.meta?.pagination };
}

export function relIds(res: JsonApiResource, name: string): string[] {
  const data = res.relationships?.[name]?.data;
  if (!data) return [];
  return (Array.isArray(data) ? data : [data]).map((r) => r.id);
}

/**
 * A resource's members as its record's decode reads them: its attributes, and each field carried by
 * a relationship under its wire name (the ids of a to-many relationship, the id of a to-one).
 */
export function membersOf(set: FieldSet, res: JsonApiResource): Record<string, unknown> {
  const out: Record<string, unknown> = { ...res.attributes };
  for (const k of set.relationships) {
    const name = set.fields[k]!.relationship!.name;
    const data = res.relationships?.[name]?.data;
    out[set.wire[k]!] = Array.isArray(data) ? data.map((r) => r.id) : data?.id;
  }
  return out;
}

/**
 * The relationships of a write: each field carried by one that has a value (a list as a to-many
 * relationship), but those in `skip` (the request's path carries them).
 */
export function relationshipsOf(set: FieldSet, p: Props, skip: readonly string[] = []): Record<string, { data: Ref | Ref[] }> {
  const out: Record<string, { data: Ref | Ref[] }> = {};
  for (const k of set.relationships) {
    const v = p[k];
    if (v === undefined || v === null || skip.includes(k) || set.outputs.includes(k)) continue;
    const { name, type } = set.fields[k]!.relationship!;
    out[name] = { data: Array.isArray(v) ? v.map((id) => ({ type, id: String(id) })) : { type, id: String(v) } };
  }
  return out;
}

const MAX_PAGES = 100_000;

/** One page of a list, and whether another follows. */
async function pageOf(client: HttpClient, spec: RequestSpec, page: number, pageSize: number): Promise<{ data: JsonApiResource[]; more: boolean }> {
  const res = await client.request({ ...spec, query: { ...spec.query, "page[number]": page, "page[size]": pageSize } });
  const { data, pagination } = many(res.body);
  const next = pagination?.["next-page"];
  return { data, more: next === undefined ? data.length >= pageSize : !!next };
}

/** Every item of a paginated list, page by page (bounded so a misbehaving server cannot loop us). */
export async function* pages(client: HttpClient, spec: RequestSpec, pageSize = 100): AsyncGenerator<JsonApiResource> {
  for (let page = 1; page <= MAX_PAGES; page++) {
    const { data, more } = await pageOf(client, spec, page, pageSize);
    for (const item of data) yield item;
    if (!more) return;
  }
}

/**
 * The ids of every item of a paginated list, or of those `keep` keeps (no iterator: most such
 * lists fit in one page, and an iterator's promises cost more than the page).
 */
export async function allIds(client: HttpClient, spec: RequestSpec, pageSize = 100, keep?: (item: JsonApiResource) => boolean): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let page = 1; page <= MAX_PAGES; page++) {
    const { data, more } = await pageOf(client, spec, page, pageSize);
    for (const item of data) if (keep === undefined || keep(item)) ids.add(item.id);
    if (!more) break;
  }
  return ids;
}
