import type { Route } from "../router";
import type { SecretsContext } from "./context";
import { transformEngine } from "./transform";

/** An engine type; its routes are relative to wherever it is mounted. */
export interface Engine {
  type: string;
  routes: Route<SecretsContext>[];
}

/** Engine types that can be mounted; adding an engine is one line here. */
export const ENGINES: Record<string, Engine> = {
  [transformEngine.type]: transformEngine,
};
