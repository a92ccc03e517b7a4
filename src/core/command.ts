/** What the package's commands (pulumi-svc-review, pulumi-svc-import) share: how they end. */
import { oneLine } from "./text";
import { nearest } from "./validate";

/** A mistake on the command line: said in one line, followed by the usage, exit 2. */
export class UsageError extends Error {}

/**
 * Reads a command line of options (`--name` or `--name VALUE`), handing each to `take` with a
 * function that reads its value (refusing a missing one). An option not in `known` is refused,
 * naming the nearest known one. "help" when `--help` is given.
 */
export function readOptions(argv: readonly string[], known: readonly string[], take: (option: string, value: () => string) => void): "help" | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--help" || a === "-h") return "help";
    if (!known.includes(a)) {
      const near = a.startsWith("-") ? nearest(a.replace(/=.*/, ""), [...known, "--help"]) : undefined;
      throw new UsageError(`unknown argument ${a}${near ? `; did you mean ${near}?` : ""}`);
    }
    take(a, () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith("--")) throw new UsageError(`${a} needs a value`);
      return v;
    });
  }
  return undefined;
}

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
