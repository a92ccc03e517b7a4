import { jsonReply, type Reply } from "../http";

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
