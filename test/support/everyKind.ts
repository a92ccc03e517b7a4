// One resource of every kind, for a program that declares them all (test/cli/programs/policy):
// each kind's inputs from the kind table (test/support/kindCases.ts), and for the kinds whose fault
// cells live in suites of their own, inputs here. A kind with neither fails `oneOfEachKind`.
import type { Emulator } from "../../src/emulator";
import { KIND_NAMES } from "../../src/kinds";
import { control } from "./emulator";
import { KIND_CASES } from "./kindCases";
import type { Props } from "./calls";

/** Inputs of the kinds the kind table has no case of (their fault suites make their own). */
const ELSEWHERE: Record<string, (emu: Emulator) => Props> = {
  "secrets:TransformStoreSchema": () => ({ store: "my", username: "schema_admin", password: "schema-admin-pass-5f1e" }),
  "secrets:ReplicationPerformancePrimary": () => ({}),
  "secrets:ReplicationSecondaryToken": () => ({ secondaryId: "west" }),
  "secrets:ReplicationPerformanceSecondary": () => ({ token: "activation-token-policy-9c2d", acknowledgeDataWipe: true }),
  "secrets:ReplicationPathsFilter": () => ({ secondaryClusterId: "cluster-west", mode: "deny", paths: ["transform/"] }),
};

export interface KindResource { kind: string; name: string; inputs: Props }

/** Every kind once, in KIND_NAMES order, named after its kind (`KeymgmtKey`). */
export async function oneOfEachKind(emu: Emulator): Promise<KindResource[]> {
  const out: KindResource[] = [];
  for (const kind of KIND_NAMES) {
    const c = KIND_CASES.find((k) => k.kind === kind);
    const make = c?.create ?? ELSEWHERE[kind];
    if (!make) throw new Error(`${kind} has no inputs: give it a case in test/support/kindCases.ts or an entry in test/support/everyKind.ts`);
    const inputs = make(emu);
    // The registry's access config takes a management token the emulator makes.
    if (kind === "secrets:RegistryAccessConfig") inputs.token = (await control<{ token: string }>(emu, "POST", "/registry/tokens", { type: "management" })).token;
    out.push({ kind, name: kind.split(":")[1]!, inputs });
  }
  return out;
}
