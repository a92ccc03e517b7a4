/** What the package's commands (pulumi-svc-review, pulumi-svc-import) share: how they end. */
import { oneLine } from "./text";

/** A mistake on the command line: said in one line, followed by the usage, exit 2. */
export class UsageError extends Error {}

/**
 * Runs a command's `main` to its end: its text on standard output with its exit code, or its
 * failure as one line named after the command (exit 1; 2 with the usage for a UsageError).
 */
export function runCommand(name: string, usage: string, main: () => Promise<{ out: string; code: number }>): void {
  main().then(
    ({ out, code }) => {
      process.stdout.write(out);
      process.exitCode = code;
    },
    (err: unknown) => {
      // One line whatever a server's message held: no line of its own, no escape for the terminal.
      process.stderr.write(`${name}: ${oneLine((err as Error).message)}\n`);
      if (err instanceof UsageError) process.stderr.write(`${usage}\n`);
      process.exitCode = err instanceof UsageError ? 2 : 1;
    },
  );
}
