import type * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import { registration, SvcResource } from "../../core/resource";
import { adopt, mount } from "../fields";
import { DEFAULT_TRANSFORM_MOUNT, deletedOnlyUnused, transformName } from "./fields";
import { field, fieldSet, type ArgsOf, type OutputsOf, type StateOf } from "../../core/fields";
import { pathObject } from "../pathObject";
import type { ConnectionArgs } from "../../core/connection";
import { TRANSFORM_ROUTES } from "./routes";

export const alphabetFields = {
  /** Name of the alphabet; part of its path, so changing it replaces the alphabet. */
  name: field(transformName, { identity: true }),
  /** Mount path of the transform engine. Default `transform`. Changing it replaces the alphabet. */
  mount: field(mount, { identity: true, default: DEFAULT_TRANSFORM_MOUNT }),
  /** The characters allowed in a value and in its encoded form: at least 2, none repeated. */
  alphabet: field(() => z.string()
    .refine((a) => [...a].length >= 2, "must hold at least 2 characters")
    .refine((a) => new Set(a).size === [...a].length, "must not repeat a character")),
  /** Take over an alphabet that already exists at the path instead of failing. */
  adopt: field(adopt, { local: true }),
};

/** An alphabet as the provider sees it (property names of the resource). */
export type AlphabetState = StateOf<typeof alphabetFields>;

const alphabetBase = pathObject<AlphabetState, AlphabetState>({
  kind: "secrets:TransformAlphabet",
  risk: {
    lost: "the templates that name it stop working, and values encoded through them no longer decode",
    changes: { alphabet: "values encoded through a template that uses it no longer decode to what they were" },
    instead: "a new alphabet and template beside the old ones (other names)",
    // A template that no transformation names encodes nothing: its alphabet is not in use.
    whileUsed: true,
  },
  fields: fieldSet(alphabetFields),
  routes: TRANSFORM_ROUTES.alphabet,
});

export const alphabetDefinition = deletedOnlyUnused(alphabetBase,
  (name, t) => `alphabet ${name} is used by template ${t}: change that template's alphabet or delete it first`);

export type AlphabetArgs = ArgsOf<typeof alphabetFields> & ConnectionArgs<"secrets">;

/**
 * A transform engine alphabet: `/{mount}/alphabet/{name}` of the secrets service.
 *
 * @example
 * ```ts
 * const hex = new svc.secrets.transform.Alphabet("hex", { name: "hex", alphabet: "0123456789abcdef" });
 * ```
 */
export interface Alphabet extends OutputsOf<typeof alphabetFields> {}
export class Alphabet extends SvcResource(alphabetDefinition) { constructor(name: string, args: AlphabetArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }
