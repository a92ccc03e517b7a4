// Shared setup of the protocol tests, which drive the compiled provider through the real
// dynamic-provider host (a child process), as the engine does. Needs `npm run build`.
import { expect } from "vitest";
import { ProviderHost } from "../../src/engine/host";
import { fromDist, root, withoutSvcEnv } from "./dist";

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
