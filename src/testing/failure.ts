// The one line a failed operation rejects with: the failed step's message as the CLI prints it
// under the resource (a check failure as "<type> resource '<name>' has a problem: ..."), never a
// stack; a program that failed before any step, its own message.
import type { Result } from "../engine/types";

const INVALID = "invalid inputs: ";

export function failureLine(r: Result): string {
  const failed = r.steps.find((s) => s.error !== undefined);
  if (!failed) return firstLine(r.error ?? "the operation failed");
  const message = firstLine(failed.error!);
  if (message.startsWith(INVALID)) return `${failed.type} resource '${failed.name}' has a problem: ${message.slice(INVALID.length)}`;
  return `${failed.op} ${failed.name}: ${message}`;
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0]!.trim();
}
