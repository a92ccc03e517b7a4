import type { Area } from "./area";
import type { EmulatorTokens } from "./auth";
import type { Data, Runtime } from "./clusterRuntime";
import { StoredModel } from "./persistence/state";
import { runArea } from "./runs";
import { SECRETS_AREAS } from "./secrets";

/**
 * Every area of the emulated services (area.ts), the one list of them: the shared folders read it
 * from the runtime, in this order (the state document's, the control rows', the page's).
 */
export const AREAS: readonly Area<Runtime, Data>[] = [runArea, ...SECRETS_AREAS];

/** The state document the areas make up: their data, initial state and tokens. */
export const STORED = new StoredModel<Data, EmulatorTokens>(AREAS.flatMap((a) => (a.stored ? [a.stored] : [])));
