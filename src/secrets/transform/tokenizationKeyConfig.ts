import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { Context, ResourceDefinition } from "../../core/definition";
import { PartialFailure } from "../../core/definition";
import { SvcResource } from "../../core/resource";
import { mount, name } from "../fields";
import { fetchData, pathOf, readBack, rotateOnce } from "../pathObject";
import { DEFAULT_TRANSFORM_MOUNT } from "./fields";
import type { ConnectionArgs } from "../../core/connection";

export const TOKENIZATION_KEY_ROUTES = {
  read: "GET /{mount}/tokenization/keys/{name}",
  list: "LIST /{mount}/tokenization/keys",
  rotate: "POST /{mount}/tokenization/keys/{name}/rotate",
  config: "POST /{mount}/tokenization/keys/{name}/config",
  trim: "POST /{mount}/tokenization/keys/{name}/trim",
} as const;

export interface TokenizationKeyConfigState {
  transformation: string;
  mount: string;
  minDecryptionVersion: number;
  rotationTrigger?: string | number;
  latestVersion?: number;
  minAvailableVersion?: number;
  [key: string]: unknown;
}

const params = (p: { mount?: string; transformation: string }) => ({ mount: p.mount ?? DEFAULT_TRANSFORM_MOUNT, name: p.transformation });

let schema: z.ZodType | undefined;

async function readConfig(ctx: Context, p: TokenizationKeyConfigState): Promise<TokenizationKeyConfigState | undefined> {
  const d = await fetchData(ctx, TOKENIZATION_KEY_ROUTES.read, params(p));
  if (!d) return undefined;
  return {
    transformation: p.transformation,
    mount: p.mount,
    minDecryptionVersion: Number(d.min_decryption_version ?? 1),
    ...(p.rotationTrigger !== undefined ? { rotationTrigger: p.rotationTrigger } : {}),
    latestVersion: Number(d.latest_version ?? 1),
    minAvailableVersion: Number(d.min_available_version ?? 0),
  };
}

async function configure(ctx: Context, p: TokenizationKeyConfigState): Promise<void> {
  await ctx.client("secrets").request({ route: TOKENIZATION_KEY_ROUTES.config, params: params(p), body: { min_decryption_version: p.minDecryptionVersion }, retry: "safe" });
}

export const tokenizationKeyConfigDefinition: ResourceDefinition<TokenizationKeyConfigState, TokenizationKeyConfigState> = {
  kind: "secrets:TransformTokenizationKeyConfig",
  schema: () => (schema ??= z.object({
    // The last segment of every key route.
    transformation: name(),
    mount: mount(),
    minDecryptionVersion: z.number({ error: "must be a number" }).int("must be a whole number").min(1, "must be 1 or more"),
    rotationTrigger: z.union([z.string(), z.number()], { error: "must be a string or a number" }).optional(),
  })),
  defaults: { mount: DEFAULT_TRANSFORM_MOUNT, minDecryptionVersion: 1 },
  immutable: ["transformation", "mount"],
  writeOnly: ["rotationTrigger"],
  outputs: ["latestVersion", "minAvailableVersion"],
  async create(ctx, inputs) {
    const id = pathOf(TOKENIZATION_KEY_ROUTES.read, params(inputs));
    const current = await readConfig(ctx, inputs);
    if (!current) throw new Error(`${id} does not exist: create the TokenizationTransformation ${inputs.transformation} first`);
    if (current.minDecryptionVersion !== inputs.minDecryptionVersion) await configure(ctx, inputs);
    return { id, outs: await readBack(id, inputs, () => readConfig(ctx, inputs)) };
  },
  read: (ctx, _id, props) => readConfig(ctx, props),
  async update(ctx, id, olds, news) {
    const rotate = news.rotationTrigger !== undefined && news.rotationTrigger !== olds.rotationTrigger;
    // Rotate first, so a minDecryptionVersion naming the new version is valid when it is set.
    if (rotate) await rotateOnce(ctx, TOKENIZATION_KEY_ROUTES, params(news), `tokenization key ${news.transformation}`);
    try {
      if (news.minDecryptionVersion !== olds.minDecryptionVersion) await configure(ctx, news);
      return await readBack(id, news, () => readConfig(ctx, news));
    } catch (e) {
      if (!rotate) throw e;
      // The rotation happened: record the new trigger so the next up does not rotate again.
      const cause = (e instanceof PartialFailure ? e.cause : e) as Error;
      throw new PartialFailure(id, { ...olds, rotationTrigger: news.rotationTrigger }, cause);
    }
  },
  // The key versions belong to the transformation; forgetting the settings changes nothing on the server.
  async delete() {},
};

export interface TokenizationKeyConfigArgs extends ConnectionArgs<"secrets"> {
  /** Name of the tokenization transformation whose keys are configured. Changing it replaces this resource. */
  transformation: pulumi.Input<string>;
  /** Mount path of the transform engine. Default `transform`. */
  mount?: pulumi.Input<string>;
  /**
   * Oldest key version usable for decoding; tokens made with older versions stop decoding. Default
   * 1; must be between the oldest available version and the latest version.
   */
  minDecryptionVersion?: pulumi.Input<number>;
  /**
   * Any value; when it changes (and is set), the update rotates the key (new tokens use the new
   * version) before applying `minDecryptionVersion`. Setting it the first time does not rotate.
   */
  rotationTrigger?: pulumi.Input<string | number>;
}

/**
 * Key settings of a tokenization transformation (`/{mount}/tokenization/keys/{name}/config`), with
 * rotation on purpose through `rotationTrigger`. Destroying it leaves the keys as they are.
 *
 * @example
 * ```ts
 * new svc.secrets.transform.TokenizationKeyConfig("ssn-keys", { transformation: ssn.name, rotationTrigger: "2026-q4" });
 * ```
 */
export class TokenizationKeyConfig extends SvcResource {
  /** The tokenization transformation. */
  declare readonly transformation: pulumi.Output<string>;
  /** Mount path of the transform engine. */
  declare readonly mount: pulumi.Output<string>;
  /** Oldest version usable for decoding. */
  declare readonly minDecryptionVersion: pulumi.Output<number>;
  /** The last rotation trigger. */
  declare readonly rotationTrigger: pulumi.Output<string | number | undefined>;
  /** The newest key version (new tokens use it). */
  declare readonly latestVersion: pulumi.Output<number>;
  /** The oldest version still held (0 until a trim). */
  declare readonly minAvailableVersion: pulumi.Output<number>;

  constructor(name: string, args: TokenizationKeyConfigArgs, opts?: pulumi.CustomResourceOptions) {
    super(tokenizationKeyConfigDefinition, name, args, opts);
  }
}
