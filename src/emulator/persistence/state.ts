/**
 * Everything the emulator keeps: the tokens, and each service's data (runs/state.ts,
 * secrets/state.ts) with the defaults `reset` restores.
 */
import { nullProto } from "../util";
import { initialRunState, type RunState } from "../runs/state";
import { initialSecretsState, type SecretsState } from "../secrets/state";

export interface EmulatorTokens {
  runAdmin: string;
  runMember: string;
  runTeam: string;
  runOrganization: string;
  secretsRoot: string;
  secretsUser: string;
}

export interface Data {
  run: RunState;
  secrets: SecretsState;
}

/** The defaults, with every map free of a prototype (see nullProto). */
export function initialData(at: string): Data {
  return nullProto<Data>({ run: initialRunState(at), secrets: initialSecretsState() });
}
