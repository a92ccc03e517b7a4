/**
 * What `pulumi-svc-import --seed FILE` writes: every object the import read, by kind and id, with
 * the values read back, for pulumi-svc/testing to put into a test's emulator (src/testing/seed.ts),
 * so that a test of the imported program finds the objects its `adoptId`s name. Nothing secret is
 * in it: values the servers never return are not read, and every field that holds a secret is left
 * out, so it is written in plaintext and may be committed beside the program.
 */
import { ADOPT_ID } from "../core/definition";
import type { Found } from "./walk";

/** The file's first member: what it is, and the version of its form. */
export const SEED_FORMAT = "pulumi-svc seed 1";

export interface SeedFile {
  format: typeof SEED_FORMAT;
  /** The servers it was read from (for the reader; a test seeds its own emulator). */
  from: string;
  /** The run-service workspaces whose notification configurations were read. */
  workspaces: string[];
  /** Every object, in the order the import read them: those that others name first. */
  objects: SeedObject[];
}

export interface SeedObject {
  /** `secrets:KeymgmtKey`. */
  kind: string;
  /** Its id on the server: a path, or the id the service assigned. */
  id: string;
  /** The values read back, under the resource's property names; no secret among them. */
  values: Record<string, unknown>;
}

/** The seed of what the walk found, as the text of the file. */
export function seedText(found: readonly Found[], from: string, workspaces: readonly string[]): string {
  const objects = found.map((f): SeedObject => {
    const fields = f.def.fields ?? {};
    const secret = new Set(f.def.secrets ?? []);
    const values: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(f.props)) {
      const flags = fields[k]?.flags;
      // Only the object's own fields: a secret or write-only one is never written, nor what steers the provider.
      if (!flags || flags.secret || flags.writeOnly || flags.local || secret.has(k) || k === ADOPT_ID || v === undefined) continue;
      values[k] = v;
    }
    return { kind: f.kind, id: f.id, values };
  });
  const file: SeedFile = { format: SEED_FORMAT, from, workspaces: [...workspaces], objects };
  return `${JSON.stringify(file, null, 2)}\n`;
}
