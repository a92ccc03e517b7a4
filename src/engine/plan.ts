// The readable plan printed by cli.ts without --json, in the spirit of `pulumi preview`.
import { Result, Step } from "./types";
import { UNKNOWN } from "./values";

const SIGNS: Record<Step["op"], string> = {
  create: "+ create",
  update: "~ update",
  replace: "+- replace",
  delete: "- delete",
  same: "  same",
  refresh: "~ refresh",
  "read-gone": "- read-gone",
  read: "> read",
  discard: "< discard",
};

export function formatPlan(result: Result): string {
  const lines: string[] = [];
  for (const s of result.steps) {
    if (s.op === "same" && !s.error) continue;
    let line = `${SIGNS[s.op]}  ${s.type}  ${s.name}`;
    if (s.replaceKeys?.length) line += `  [replace: ${s.replaceKeys.join(", ")}]`;
    else if (s.changedKeys?.length) line += `  [changed: ${s.changedKeys.join(", ")}]`;
    if (s.op === "replace" && s.deleteBeforeReplace) line += "  (delete before replace)";
    lines.push(line);
    if (s.error) lines.push(`    error: ${s.error}`);
  }
  lines.push("Outputs:");
  for (const [k, v] of Object.entries(result.outputs)) {
    lines.push(`    ${k}: ${v === UNKNOWN ? "[unknown]" : JSON.stringify(v)}`);
  }
  const counts = new Map<string, number>();
  for (const s of result.steps) counts.set(s.op, (counts.get(s.op) ?? 0) + 1);
  lines.push(`Resources: ${[...counts].map(([op, n]) => `${n} ${op}`).join(", ") || "no changes"}`);
  for (const d of result.diagnostics) lines.push(`diagnostic: ${d}`);
  if (result.error) lines.push(`error: ${result.error}`);
  return lines.join("\n");
}
