// Ending the child processes the engine double starts (provider hosts, policy packs).
import type { ChildProcess } from "child_process";

/** Asks `proc` to end (SIGTERM), kills it if it is still there after `graceMs`, and resolves once it has exited. */
export async function endChild(proc: ChildProcess, graceMs = 2_000): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  proc.kill("SIGTERM");
  const timer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
  await gone;
  clearTimeout(timer);
}
