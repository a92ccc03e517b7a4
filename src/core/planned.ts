/**
 * What a preview says of a side-effecting function, which makes no request until `up` (src/core/fn.ts
 * logs it; pulumi-svc-review lists it). Its own module: the review reads the prefix without loading
 * the functions' machinery.
 */
import { redact } from "../http/redact";
import type { Fields } from "./fields";
import type { Props } from "./props";
import { isUnknown } from "./unknown";

/** How a preview's line about a function starts; pulumi-svc-review lists these lines (docs/review.md). */
export const PLANNED = "pulumi-svc: on up, the program calls ";

/**
 * The line a preview logs for a side-effecting function, which makes no request until `up`: its
 * name and its plain arguments that are not secret (`encode role="payments" transformation="card"`).
 * Without a field record the secret arguments are not known, so none is shown.
 */
export function planned(def: { name: string; fields?: Fields }, args: unknown): string {
  const shown: string[] = [];
  if (def.fields && args !== null && typeof args === "object") {
    for (const [k, v] of Object.entries(args as Props)) {
      const f = def.fields[k];
      if (!f || f.flags.secret || isUnknown(v)) continue;
      if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") shown.push(`${k}=${JSON.stringify(v).slice(0, 120)}`);
      else if (Array.isArray(v)) shown.push(`${k}=[${v.length} ${v.length === 1 ? "item" : "items"}]`);
    }
  }
  return redact(`${PLANNED}${def.name}${shown.length ? ` ${shown.join(" ")}` : ""}`);
}
