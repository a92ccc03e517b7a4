// Objects made outside Pulumi, by raw requests (no provider code), of every kind the import takes
// over that the emulator can hold alone (test/engine/testing-import.test.ts names the others and
// why): what pulumi-svc-import must find, write and take over (test/program/import.test.ts and, under the real CLI, test/package/install.test.ts).
// Each kind's objects are its `seed` in test/support/kindCases.ts, made by the raw-request factory there.
import type { Emulator } from "../../src/emulator";
import { KIND_CASES, type Seeded } from "./kindCases";

export { WRITE_ONLY, type Seeded } from "./kindCases";

/** One or more objects of each importable kind, the references between them set. */
export async function seedEveryKind(emu: Emulator): Promise<Seeded> {
  const seeded = { ids: {} } as unknown as Seeded;
  for (const c of KIND_CASES) {
    if (!c.seed) continue;
    const { ids, ...rest } = await c.seed(emu);
    Object.assign(seeded, rest);
    Object.assign(seeded.ids, ids);
  }
  return seeded;
}
