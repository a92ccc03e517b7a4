import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { SvcResource } from "../../core/resource";
import type { ResourceDefinition } from "../../core/definition";
import { adopt, mount } from "../fields";
import { inUse, transformName, usersOf } from "./fields";
import { pathObject } from "../pathObject";
import type { ConnectionArgs } from "../../core/connection";

export interface AlphabetState {
  name: string;
  mount: string;
  alphabet: string;
  adopt?: boolean;
  [key: string]: unknown;
}

let schema: z.ZodType | undefined;

const alphabetBase = pathObject<AlphabetState, AlphabetState>({
  kind: "secrets:TransformAlphabet",
  schema: () => (schema ??= z.object({
    name: transformName(),
    mount: mount(),
    alphabet: z.string()
      .refine((a) => [...a].length >= 2, "must hold at least 2 characters")
      .refine((a) => new Set(a).size === [...a].length, "must not repeat a character"),
    adopt: adopt(),
  })),
  defaults: { mount: "transform" },
  immutable: ["name", "mount"],
  identity: ["name", "mount"],
  local: ["adopt"],
  outputs: [],
  routes: {
    write: "POST /{mount}/alphabet/{name}",
    read: "GET /{mount}/alphabet/{name}",
    delete: "DELETE /{mount}/alphabet/{name}",
    list: "LIST /{mount}/alphabet",
  },
  params: (p) => ({ mount: p.mount, name: p.name }),
  body: (p) => ({ alphabet: p.alphabet }),
  fromData: (d, p) => ({ name: p.name, mount: p.mount, alphabet: String(d.alphabet ?? "") }),
});

export const alphabetDefinition: ResourceDefinition<AlphabetState, AlphabetState> = {
  ...alphabetBase,
  async delete(ctx, id, props) {
    const users = await usersOf(ctx, props.mount, "LIST /{mount}/template", "GET /{mount}/template/{name}", (d) => d.alphabet === props.name);
    if (users.length > 0) {
      throw inUse("DELETE", "DELETE /{mount}/alphabet/{name}", { mount: props.mount, name: props.name }, users.map((t) =>
        `alphabet ${props.name} is used by template ${t}: change that template's alphabet or delete it first`));
    }
    await alphabetBase.delete(ctx, id, props);
  },
};

export interface AlphabetArgs extends ConnectionArgs<"secrets"> {
  /** Name of the alphabet; part of its path, so changing it replaces the alphabet. */
  name: pulumi.Input<string>;
  /** Mount path of the transform engine. Default `transform`. Changing it replaces the alphabet. */
  mount?: pulumi.Input<string>;
  /** The characters allowed in a value and in its encoded form: at least 2, none repeated. */
  alphabet: pulumi.Input<string>;
  /** Take over an alphabet that already exists at the path instead of failing. */
  adopt?: pulumi.Input<boolean>;
}

/**
 * A transform engine alphabet: `/{mount}/alphabet/{name}` of the secrets service.
 *
 * @example
 * ```ts
 * const hex = new svc.secrets.transform.Alphabet("hex", { name: "hex", alphabet: "0123456789abcdef" });
 * ```
 */
export class Alphabet extends SvcResource {
  /** Name of the alphabet; part of its path, so changing it replaces the alphabet. */
  declare readonly name: pulumi.Output<string>;
  /** Mount path of the transform engine. Default `transform`. Changing it replaces the alphabet. */
  declare readonly mount: pulumi.Output<string>;
  /** The characters allowed in a value and in its encoded form: at least 2, none repeated. */
  declare readonly alphabet: pulumi.Output<string>;

  constructor(name: string, args: AlphabetArgs, opts?: pulumi.CustomResourceOptions) {
    super(alphabetDefinition, name, args, opts);
  }
}
