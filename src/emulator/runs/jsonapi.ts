import { header, jsonReply, parseJson, type Incoming, type Reply } from "../transport/http";
import { hasOwn, isRecord } from "../util";

export const JSON_API = "application/vnd.api+json";
export const API_PREFIX = "/api/v2";

export interface ApiError {
  status: string;
  title: string;
  detail?: string;
  source?: { pointer?: string; parameter?: string };
}

export function documentReply(status: number, document: unknown): Reply {
  return jsonReply(status, document, JSON_API);
}

export function errorReply(status: number, errors: ApiError[]): Reply {
  return documentReply(status, { errors });
}

export function simpleError(status: number, title: string, detail?: string): Reply {
  return errorReply(status, [{ status: String(status), title, ...(detail === undefined ? {} : { detail }) }]);
}

/** The seed folds "unauthorized" into 404 so callers cannot probe for ids. */
export function notFound(): Reply {
  return simpleError(404, "not found");
}

export function invalid(pointer: string, detail: string): ApiError {
  return { status: "422", title: "invalid attribute", detail, source: { pointer } };
}

/** The request body as JSON (absent = undefined), or the 422 errors of a body that is not JSON. */
export function readDocument(req: Incoming): { ok: true; value: unknown } | { ok: false; errors: ApiError[] } {
  const parsed = parseJson(req.body);
  if (parsed.ok) return parsed;
  return { ok: false, errors: [{ ...invalid("", `request body is not valid JSON: ${parsed.error}`), title: "malformed request body" }] };
}

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

export interface Page<T> {
  items: T[];
  meta?: { pagination: Record<string, number | null> };
  links?: Record<string, string | null>;
}

/**
 * Pagination applies only when the caller asks for it: list endpoints of the seed return
 * everything when neither page[number] nor page[size] is present.
 */
export function paginate<T>(items: T[], query: URLSearchParams, selfPath: string): Page<T> | ApiError[] {
  const rawNumber = query.get("page[number]");
  const rawSize = query.get("page[size]");
  if (rawNumber === null && rawSize === null) return { items };
  const errors: ApiError[] = [];
  const number = positiveInt(rawNumber, 1);
  const size = positiveInt(rawSize, DEFAULT_PAGE_SIZE);
  if (number === undefined) errors.push(badParameter("page[number]"));
  if (size === undefined) errors.push(badParameter("page[size]"));
  if (number === undefined || size === undefined) return errors;
  const pageSize = Math.min(size, MAX_PAGE_SIZE);
  const totalPages = Math.max(1, Math.ceil(items.length / pageSize));
  const link = (n: number) =>
    `${API_PREFIX}${selfPath}?${encodeURIComponent("page[number]")}=${n}&${encodeURIComponent("page[size]")}=${pageSize}`;
  const prev = number > 1 ? Math.min(number - 1, totalPages) : null;
  const next = number < totalPages ? number + 1 : null;
  return {
    items: items.slice((number - 1) * pageSize, number * pageSize),
    meta: {
      pagination: {
        "current-page": number,
        "page-size": pageSize,
        "prev-page": prev,
        "next-page": next,
        "total-pages": totalPages,
        "total-count": items.length,
      },
    },
    links: {
      self: link(number),
      first: link(1),
      prev: prev === null ? null : link(prev),
      next: next === null ? null : link(next),
      last: link(totalPages),
    },
  };
}

function positiveInt(raw: string | null, fallback: number): number | undefined {
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw)) return undefined;
  const n = Number(raw);
  return n >= 1 && Number.isSafeInteger(n) ? n : undefined;
}

function badParameter(name: string): ApiError {
  return { status: "422", title: "invalid parameter", detail: `${name} must be a positive integer`, source: { parameter: name } };
}

/** JSON:API: a 201 names the created resource in Location, the same URL as its self link. */
export function withLocation(reply: Reply, location: string): Reply {
  return { ...reply, headers: { ...reply.headers, location } };
}

/** JSON:API: a PATCH whose `data.id` names another resource than the URL is a 409. */
export function idConflict(body: unknown, id: string): Reply | undefined {
  if (!isRecord(body) || !isRecord(body.data) || !hasOwn(body.data, "id")) return undefined;
  if (body.data.id === id) return undefined;
  return simpleError(409, "conflict", `data.id ${JSON.stringify(body.data.id)} does not match the resource in the URL (${id})`);
}

/** A media type's parameters other than q (an Accept weight, not a parameter of the type). */
function parameterised(mediaType: string): { type: string; parameterised: boolean } {
  const [type, ...params] = mediaType.split(";").map((p) => p.trim());
  return { type: type.toLowerCase(), parameterised: params.some((p) => p !== "" && !/^q\s*=/i.test(p)) };
}

/**
 * The JSON:API content negotiation rules every run-service request goes through first:
 * 415 for a request body typed as JSON:API with media-type parameters, 406 when Accept names the
 * JSON:API type only with parameters, 400 for `sort` (no run-service list supports sorting).
 */
export function negotiate(req: Incoming): Reply | undefined {
  const contentType = header(req.headers, "content-type");
  if (contentType !== undefined) {
    const ct = parameterised(contentType);
    if (ct.type === JSON_API && ct.parameterised) {
      return simpleError(415, "unsupported media type", `Content-Type ${contentType} has media type parameters; send ${JSON_API} without parameters`);
    }
  }
  const accept = header(req.headers, "accept");
  if (accept !== undefined) {
    const jsonApi = accept.split(",").map(parameterised).filter((m) => m.type === JSON_API);
    if (jsonApi.length > 0 && jsonApi.every((m) => m.parameterised)) {
      return simpleError(406, "not acceptable", `Accept lists ${JSON_API} only with media type parameters; accept ${JSON_API} without parameters`);
    }
  }
  if (req.query.has("sort")) {
    return { ...errorReply(400, [{ status: "400", title: "invalid query parameter", detail: "sorting is not supported by this endpoint", source: { parameter: "sort" } }]) };
  }
  return undefined;
}
