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

/** Every item of a paginated list, page by page (bounded so a misbehaving server cannot loop us). */
export async function* pages(client: HttpClient, spec: RequestSpec, pageSize = 100): AsyncGenerator<JsonApiResource> {
  for (let page = 1; page <= 100_000; page++) {
    const res = await client.request({ ...spec, query: { ...spec.query, "page[number]": page, "page[size]": pageSize } });
    const { data, pagination } = many(res.body);
    for (const item of data) yield item;
    const next = pagination?.["next-page"];
    if (next === undefined ? data.length < pageSize : !next) return;
  }
}
