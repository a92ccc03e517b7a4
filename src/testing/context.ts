// An inline program's deployment in an async context of its own. The SDK keeps its settings
// (the mock monitor setMocks installs, the stack config, dry run) in a store that
// `withLocalStorage` gives each context, as the Automation API does for its inline programs; so
// stacks that run at once in one process never see each other's monitor or config.
//
// When a step fails, the outputs of the program's resources reject, and nothing in the program
// awaits most of them. Under the CLI the language host collects those rejections; here they would
// reach the test runner as unhandled errors of the user's test. Node emits `unhandledRejection` in
// the async context of the rejected promise, so a rejection from a deployment's context goes to
// that deployment (it decides whether the program failed) and every other one to the runner as before.
import * as path from "node:path";
import { loadPulumi } from "../engine/monitor";
import type { InlineProgram } from "../engine/runner";

interface SdkState {
  withLocalStorage<T>(callback: () => Promise<T>): Promise<T>;
  getLocalStore(): object | undefined;
}

type Listener = (reason: unknown) => void;
const listeners = new WeakMap<object, Listener>();
const routed = new WeakSet<SdkState>();

function routeRejections(state: SdkState): void {
  if (routed.has(state)) return;
  routed.add(state);
  const target = process as unknown as { emit(event: string | symbol, ...args: unknown[]): boolean };
  const emit = target.emit;
  target.emit = function (this: unknown, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "unhandledRejection") {
      const store = state.getLocalStore();
      const listener = store && listeners.get(store);
      if (listener) {
        listener(args[0]);
        return true;
      }
    }
    return emit.call(this, event, ...args);
  };
}

export function inContext<T>(
  cwd: string,
  config: { config: Record<string, string>; secretConfig: Record<string, string> },
  program: () => unknown,
  run: (inline: InlineProgram) => Promise<T>,
): Promise<T> {
  // The user's copy of the SDK (the one their program's resources register through).
  const { pulumi, dir } = loadPulumi(cwd);
  const state = require(path.join(dir, "runtime/state")) as SdkState;
  routeRejections(state);
  return state.withLocalStorage(async () => {
    pulumi.runtime.setAllConfig({ ...config.config, ...config.secretConfig }, Object.keys(config.secretConfig));
    const store = state.getLocalStore()!;
    return run({ program, listen: (listener) => listeners.set(store, listener) });
  });
}
