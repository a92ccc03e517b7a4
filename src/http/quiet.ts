/**
 * Expected failures (a service's 4xx/5xx, a refused connection, a missing setting) are reported to
 * users as one line: what was done, the service's answer, what to do. Their JavaScript stack says
 * nothing a user can act on, so it is shown only when debugging: SVC_DEBUG=1, or a Pulumi run with
 * verbose logging flowed to plugins (`--logflow -v=N`: the engine passes `-v=N` to the provider host).
 */
export function debugging(): boolean {
  return process.env.SVC_DEBUG === "1" || process.argv.some((a) => /^-v=[1-9]/.test(a));
}

/**
 * Makes an expected error print as one line. Pulumi's program runner prints only the message of an
 * error carrying `__pulumiRunError` (the SDK's RunError brand) instead of an inspection of the
 * object; where it prints `err.stack` (a rejection that arrives after the program's main code has
 * run), the stack is the error's first line alone, kept current when a caller prefixes the message.
 * Neither is enumerable: they stay out of JSON, inspection and object comparisons.
 */
export function markExpected(e: Error): void {
  if (debugging()) return;
  Object.defineProperty(e, "__pulumiRunError", { value: true, configurable: true });
  Object.defineProperty(e, "stack", {
    configurable: true,
    get: () => `${e.name}: ${e.message}`,
    set: (value: unknown) => Object.defineProperty(e, "stack", { value, writable: true, configurable: true }),
  });
}

const pending = new Set<string>();
let installed = false;

/** Forgets the lines still to be dropped, for a process that serves another deployment next. */
export function forgetQuietLines(): void {
  pending.clear();
}

/**
 * The dynamic-provider host prints `${e}: ${e.stack}` to its stderr for every failed check, diff,
 * read and delete, and the engine shows that under the stack's diagnostics: a dozen frames that
 * repeat what the resource's own error line already says. This drops exactly that line for an
 * expected error about to be handed to the host; any other output, and every unexpected error's
 * stack, is printed as before.
 */
export function quietHostLine(e: Error): void {
  if (debugging()) return;
  if (!installed) {
    installed = true;
    const print = console.error.bind(console);
    console.error = (...args: unknown[]) => {
      if (args.length === 1 && typeof args[0] === "string" && pending.delete(args[0])) return;
      print(...args);
    };
  }
  pending.add(`${String(e)}: ${e.stack}`);
}
