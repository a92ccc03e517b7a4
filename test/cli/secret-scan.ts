// What a stack's stored state must not hold in plaintext, and the check: shared by the examples
// suite (the export) and the state-backend suite (every row or object the backend stored).
import type { Emulator } from "../../src/emulator";
import type { CliStack } from "./cli";
import { fillAll, type Expectations, type Prepared } from "./expectations";

/** How the engine marks a secret value in state: `{<SECRET_SIG>: SECRET, ciphertext | plaintext}`. */
export const SECRET_SIG = "4dabf18193072939515e22adb298388d";
export const SECRET = "1b47061264138c4ac30d75fd1eb44270";

const isSecretValue = (o: Record<string, unknown>) => o[SECRET_SIG] === SECRET && typeof o.plaintext === "string";

/**
 * The secret texts of the state, read with `stack export --show-secrets` (where each secret is
 * `{<sig>, plaintext}`), per place: `<resource>.<property>` or `output.<name>`. Left out: strings
 * shorter than 8 characters, as redaction leaves them (a user name such as `svc-app` inside a
 * secret credentials object also stands in plain sight as a role's input), and the stack's plain
 * config values (a connection's URL beside its token in one secret object is no secret).
 */
export async function secretMaterial(stack: CliStack, plainConfig: Record<string, string>): Promise<Map<string, string[]>> {
  const shown = JSON.parse((await stack.ok(["stack", "export", "--show-secrets"])).stdout) as { deployment: { resources?: { urn: string; type: string; inputs?: object; outputs?: object }[] } };
  const open = new Set(Object.values(plainConfig));
  const found = new Map<string, string[]>();
  const leaves = (v: unknown, into: string[]): void => {
    if (typeof v === "string") {
      if (v.trim().length >= 8 && !open.has(v)) into.push(v);
    } else if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      // A secret inside a secret.
      if (isSecretValue(o)) leaves(JSON.parse(o.plaintext as string), into);
      else for (const x of Object.values(o)) leaves(x, into);
    }
  };
  const walk = (v: unknown, place: string): void => {
    if (!v || typeof v !== "object") return;
    const o = v as Record<string, unknown>;
    if (isSecretValue(o)) {
      const into = found.get(place) ?? [];
      leaves(JSON.parse(o.plaintext as string), into);
      found.set(place, into);
      return;
    }
    for (const x of Object.values(o)) walk(x, place);
  };
  for (const r of shown.deployment.resources ?? []) {
    const name = r.urn.split("::").pop()!;
    for (const part of [r.inputs, r.outputs]) {
      for (const [k, v] of Object.entries(part ?? {})) walk(v, r.type === "pulumi:pulumi:Stack" ? `output.${k}` : `${name}.${k}`);
    }
  }
  return found;
}

/** The example's secret config and every token of the emulator, by name. */
export function exampleSecrets(exp: Expectations, emu: Emulator, prepared: Prepared | undefined): [string, string[]][] {
  return [
    ...Object.entries(fillAll(exp.secretConfig, emu, prepared?.extra)).map(([k, v]): [string, string[]] => [`config ${k}`, [v]]),
    ...Object.entries(emu.tokens).map(([k, v]): [string, string[]] => [`emulator token ${k}`, [v]]),
    ...emu.clusters.map((c): [string, string[]] => [`cluster ${c.index} root token`, [c.secretsToken]]),
  ];
}

/**
 * Where each secret found in `text` came from, raw or JSON-escaped (as a PEM's line breaks would
 * be): the places only, so a failure never prints the secret.
 */
export function leakedPlaces(text: string, secrets: Map<string, string[]>): string[] {
  return [...secrets].filter(([, values]) => values.some((v) => text.includes(v) || text.includes(JSON.stringify(v).slice(1, -1)))).map(([place]) => place);
}
