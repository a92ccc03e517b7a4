// Shared setup of the protocol tests, which drive the compiled provider through the real
// dynamic-provider host (a child process), as the engine does. Needs `npm run build`.
import { afterAll, beforeAll, expect } from "vitest";
import type { Emulator } from "../../src/emulator";
import { ProviderHost } from "../../src/engine/host";
import { fromDist, root, withoutSvcEnv } from "./dist";
import { late, useEmulators } from "./program";

// The compiled SDK and trampoline, so the text serialized here is what a user's program would send.
const pulumi = fromDist<typeof import("@pulumi/pulumi")>("../node_modules/@pulumi/pulumi/index.js");
const { providerFor } = fromDist<typeof import("../../src/core/trampoline")>("src/core/trampoline.js");

const texts: Record<string, string> = {};

/** Exactly what pulumi.dynamic.Resource serializes: a closure returning the provider object. Memoised per kind, so the tests of a kind share one text. */
export async function serializedProvider(kind: string): Promise<string> {
  const provider = providerFor(kind);
  texts[kind] ??= (await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true })).text;
  return texts[kind];
}

export const urn = (kind: string, name: string) => `urn:pulumi:dev::proj::pulumi-nodejs:dynamic/${kind}::${name}`;

/** A host started with no SVC_* variables, so the provider gets everything through Configure, as under the engine. */
export async function configuredHost(config: Record<string, string>): Promise<ProviderHost> {
  const host = await ProviderHost.start({ cwd: root, env: withoutSvcEnv() });
  // The caller only gets the host once configured, so close it here if Configure fails.
  await host.configure(config).catch(async (e) => { await host.close(); throw e; });
  return host;
}

/** Check through the host with the kind's provider text; for inputs the test expects to pass. */
export async function hostChecked(host: ProviderHost, kind: string, name: string, news: Record<string, unknown>, olds: object = {}) {
  const r = await host.check(urn(kind, name), olds, { __provider: await serializedProvider(kind), ...news });
  expect(r.failures).toEqual([]);
  return r.inputs;
}

/**
 * The emulator (with `clusters` secrets clusters) and the configured provider hosts of a protocol
 * test file or describe block, one for each entry of `hosts` (its stack config, given the emulator):
 * started in beforeAll, hosts closed before the emulator in afterAll. Each is a late() handle, used
 * in tests as the object itself: `const { emu, host } = useHosts({ host: (emu) => ({ ... }) })`.
 */
export function useHosts<H extends string>(hosts: Record<H, (emu: Emulator) => Record<string, string>>, options: { clusters?: number } = {}): { emu: Emulator } & Record<H, ProviderHost> {
  const { emu } = useEmulators({ clusters: options.clusters });
  const started = new Map<H, ProviderHost>();
  beforeAll(async () => {
    for (const [name, config] of Object.entries(hosts) as [H, (emu: Emulator) => Record<string, string>][]) started.set(name, await configuredHost(config(emu)));
  });
  afterAll(async () => {
    for (const host of started.values()) await host.close();
    started.clear();
  });
  const handles = Object.fromEntries(Object.keys(hosts).map((name) => [name, late(`host ${name}`, () => started.get(name as H))])) as Record<H, ProviderHost>;
  return { emu, ...handles };
}
