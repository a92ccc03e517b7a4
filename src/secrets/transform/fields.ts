/** Field rules shared by the transform engine's objects. */
import { z } from "zod";
import type { Context } from "../../core/definition";
import { ConflictError } from "../../http";
import { name } from "../fields";
import { fetchData, listNames, pathOf } from "../pathObject";

export const DEFAULT_TRANSFORM_MOUNT = "transform";

/** An object name; names starting with `builtin/` belong to the service. @internal */
export const transformName = () =>
  z.string().refine((n) => !n.startsWith("builtin/"), 'names starting with "builtin/" are reserved for the built-in objects').pipe(name());

/** A reference to another object: may be a built-in (`builtin/numeric`). @internal */
export const reference = () => z.string().min(1, "must not be empty");

/** A list of names compared as a set. @internal */
export const names = () => z.array(reference(), { error: "must be a list of names" });

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** Seconds of a duration given as seconds or as text (`90s`, `15m`, `24h`, `1h30m`, `7d`); undefined when malformed. */
export function seconds(value: unknown): number | undefined {
  if (value === undefined || value === null || value === "") return 0;
  if (typeof value === "number") return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value !== "string") return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  if (!/^(?:\d+[smhd])+$/.test(value)) return undefined;
  return value.match(/\d+[smhd]/g)!.reduce((sum, p) => sum + Number(p.slice(0, -1)) * UNITS[p.slice(-1)], 0);
}

/** @internal zod types stay out of the public declarations. */
export const duration = () =>
  z.union([z.string(), z.number()], { error: 'must be a duration such as "24h" or a number of seconds' })
    .refine((v) => seconds(v) !== undefined, 'must be a duration such as "90s", "15m", "24h", "1h30m" or whole seconds');

/** The user's own spelling when the server's seconds mean the same, so "24h" never diffs with 86400. */
export function sameDuration(input: unknown, server: unknown): string | number {
  const s = Number(server ?? 0);
  return input !== undefined && seconds(input) === s ? (input as string | number) : s;
}

/** A sorted copy, so lists the service may reorder compare equal. */
export const sorted = (v: unknown): string[] => (Array.isArray(v) ? v.map(String).sort() : []);

/** Refuses a delete the service would refuse, naming who still uses the object and what to do. */
export function inUse(method: string, route: string, params: Record<string, string>, messages: string[]): ConflictError {
  return new ConflictError({ service: "secrets", method, path: `/${pathOf(route, params)}`, messages });
}

/** Names under `list` whose object (read with `read`) satisfies `uses`. */
export async function usersOf(ctx: Context, mount: string, list: string, read: string, uses: (data: Record<string, unknown>) => boolean): Promise<string[]> {
  const out: string[] = [];
  for (const n of await listNames(ctx, list, { mount })) {
    const data = await fetchData(ctx, read, { mount, name: n });
    if (data && uses(data)) out.push(n);
  }
  return out;
}
