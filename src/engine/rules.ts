// The engine's rules that do not depend on a running deployment: how outputs become secret,
// how ignoreChanges rewrites inputs, and in what order resources are deleted.
import { StateResource } from "./state";
import { PropertyMap, annotateSecrets, containsSecret, secret } from "./values";

/**
 * Outputs as the engine records them: secretness carried over from the inputs sent
 * (annotateSecrets), then every key named in additionalSecretOutputs made secret.
 */
export function markOutputs(outs: PropertyMap, secretKeys: string[], inputs: PropertyMap): { outputs: PropertyMap; secretOutputs: string[] } {
  const outputs = annotateSecrets(outs, inputs);
  for (const k of secretKeys) if (k in outputs) outputs[k] = secret(outputs[k]!);
  return { outputs, secretOutputs: Object.keys(outputs).filter((k) => containsSecret(outputs[k])) };
}

/** ignoreChanges (top-level keys): the old input value wins, as if the program had not changed it. */
export function applyIgnoreChanges(news: PropertyMap, olds: PropertyMap, ignore: string[]): PropertyMap {
  if (ignore.length === 0) return news;
  const out = { ...news };
  for (const k of ignore) {
    if (k in olds) out[k] = olds[k]!;
    else delete out[k];
  }
  return out;
}

/** Orders resources for deletion: every resource after all of its dependents (and children). */
export function deleteOrder(list: StateResource[]): StateResource[] {
  const order: StateResource[] = [];
  const visited = new Set<StateResource>();
  const visit = (r: StateResource): void => {
    if (visited.has(r)) return;
    visited.add(r);
    for (const q of list) if (q !== r && (q.dependencies.includes(r.urn) || q.parent === r.urn)) visit(q);
    order.push(r);
  };
  for (const r of [...list].reverse()) visit(r);
  return order;
}

/**
 * The engine's delete schedule (ScheduleDeletes): waves whose deletes may run in parallel, each
 * starting when the one before has finished. It peels off what depends on nothing left (its
 * dependencies and parent are not to be deleted, or already peeled off) and reverses the result,
 * so the first wave holds what nothing depends on, and a resource comes after its dependents.
 */
export function deleteWaves(list: StateResource[]): StateResource[][] {
  let left = deleteOrder(list);
  const levels: StateResource[][] = [];
  while (left.length > 0) {
    const waits = (r: StateResource) => left.some((q) => q !== r && (r.dependencies.includes(q.urn) || r.parent === q.urn));
    const level = left.filter((r) => !waits(r));
    // A dependency cycle cannot come from a program; the rest makes one more wave.
    if (level.length === 0) {
      levels.push(left);
      break;
    }
    levels.push(level);
    left = left.filter((r) => !level.includes(r));
  }
  return levels.reverse();
}
