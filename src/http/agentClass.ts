// undici's Agent, taken from the module that defines it rather than from undici's index. The index
// loads all of undici (fetch, WebSocket, cookies, caches, mocks: 110 modules), and a provider host's
// first create loads it for one read in its Check (src/core/leftovers.ts); the Agent and what it
// needs to send a request are 23 modules (docs/performance.md, "Cold start in the provider host").
// undici ships no `exports` map, so the file is reachable; an undici that moved it falls back to
// the index, and test/unit/cold-start.test.ts fails on that undici so the path is mended.
import type { Agent } from "undici";

/** Where undici 6 and 7 define their Agent. */
export const AGENT_MODULE = "undici/lib/dispatcher/agent.js";

let agentClass: typeof Agent | undefined;

/** The Agent class, loaded on first use. */
export function undiciAgent(): typeof Agent {
  return (agentClass ??= load());
}

function load(): typeof Agent {
  try {
    const own = require(AGENT_MODULE) as unknown;
    if (typeof own === "function") return own as typeof Agent;
  } catch {
    // Not where undici 7 keeps it: the index has it in any version.
  }
  return (require("undici") as typeof import("undici")).Agent;
}
