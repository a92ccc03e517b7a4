/** The little of JSON:API the run service needs: single and list documents, refs, pagination. */
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

/** The ids of every item of a paginated list (no iterator: most such lists fit in one page). */
export async function allIds(client: HttpClient, spec: RequestSpec, pageSize = 100): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let page = 1; page <= MAX_PAGES; page++) {
    const { data, more } = await pageOf(client, spec, page, pageSize);
    for (const item of data) ids.add(item.id);
    if (!more) break;
  }
  return ids;
}
