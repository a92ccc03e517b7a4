/**
 * Ids the service gives the next objects of a kind whose id it assigns (`PUT /_emulator/next-ids`),
 * so that a test can hold a real server's objects under their own ids: a program that takes an
 * object over by its id (`adoptId`) finds it (pulumi-svc/testing's `seed`). Not persisted; reset
 * clears them. The kinds are the areas' (area.ts `assignedIds`), as the control body names them.
 */

const ID = /^[A-Za-z0-9_-]+$/;

export class NextIds {
  private queues = new Map<string, string[]>();

  constructor(private readonly kinds: readonly string[]) {}

  /**
   * The next id given for `kind`, skipping any that `inUse` (an object holds it by now); undefined
   * when none is left, and the service makes one up as it always does.
   */
  take(kind: string, inUse: (id: string) => boolean): string | undefined {
    if (!this.kinds.includes(kind)) throw new Error(`${kind} is not registered as a kind whose ids the service assigns (an area's assignedIds)`);
    const queue = this.queues.get(kind) ?? [];
    let id = queue.shift();
    while (id !== undefined && inUse(id)) id = queue.shift();
    return id;
  }

  /** Replaces the ids of the kinds the body names; a message naming the bad entry instead. */
  set(value: unknown): string | undefined {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return "body must be a JSON object";
    const next = new Map(this.queues);
    for (const [kind, ids] of Object.entries(value)) {
      if (!this.kinds.includes(kind)) return `${kind} is not a kind whose ids the services assign (${this.kinds.join(", ")})`;
      if (!Array.isArray(ids)) return `${kind} must be a list of ids`;
      const bad = ids.findIndex((id) => typeof id !== "string" || !ID.test(id));
      if (bad >= 0) return `${kind}[${bad}] must be an id of letters, digits, - and _`;
      next.set(kind, [...(ids as string[])]);
    }
    this.queues = next;
    return undefined;
  }

  /** What is left to give, per kind. */
  left(): Record<string, string[]> {
    return Object.fromEntries(this.kinds.map((k) => [k, [...(this.queues.get(k) ?? [])]]));
  }

  clear(): void {
    this.queues.clear();
  }
}
