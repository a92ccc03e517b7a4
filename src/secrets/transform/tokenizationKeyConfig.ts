import type * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import type { Context, ResourceDefinition } from "../../core/definition";
import { PartialFailure } from "../../core/definition";
import { registration, SvcResource } from "../../core/resource";
import { field, fieldSet, output, type ArgsOf, type OutputsOf, type StateOf } from "../../core/fields";
import { mount, name } from "../fields";
import { fetchData, pathOf, readBack, rotateOnce } from "../pathObject";
import { DEFAULT_TRANSFORM_MOUNT } from "./fields";
import type { ConnectionArgs } from "../../core/connection";
import { TRANSFORM_ROUTES } from "./routes";

const version = (min: number) => () => z.number({ error: "must be a number" }).int("must be a whole number").min(min, `must be ${min} or more`);

export const tokenizationKeyConfigFields = {
  /**
   * Name of the tokenization transformation whose keys are configured (the last segment of every
   * key route). Changing it replaces this resource.
   */
  transformation: field(name, { immutable: true, refers: "secrets:TransformTokenizationTransformation" }),
  /** Mount path of the transform engine. Default `transform`. Changing it replaces this resource. */
  mount: field(mount, { immutable: true, default: DEFAULT_TRANSFORM_MOUNT }),
  /**
   * Oldest key version usable for decoding; tokens made with older versions stop decoding. Default
   * 1; must be between the oldest available version and the latest version.
   */
  minDecryptionVersion: field(version(1), { default: 1, decode: (v: unknown) => Number(v) }),
  /**
   * Any value; when it changes (and is set), the update rotates the key (new tokens use the new
   * version) before applying `minDecryptionVersion`. Setting it the first time does not rotate.
   */
  rotationTrigger: field(() => z.union([z.string(), z.number()], { error: "must be a string or a number" }), { optional: true, writeOnly: true }),
  /** The newest key version (new tokens use it). */
  latestVersion: output<number>({ decode: (v) => Number(v) }),
  /** The oldest version still held (0 until a trim); older ones are gone for good. */
  minAvailableVersion: output<number>({ decode: (v) => Number(v) }),
};

const keyConfigSet = fieldSet(tokenizationKeyConfigFields);

/** Key settings as the provider sees them (property names of the resource). */
export type TokenizationKeyConfigState = StateOf<typeof tokenizationKeyConfigFields>;

const params = (p: { mount?: string; transformation: string }) => ({ mount: p.mount ?? DEFAULT_TRANSFORM_MOUNT, name: p.transformation });

async function readConfig(ctx: Context, p: TokenizationKeyConfigState): Promise<TokenizationKeyConfigState | undefined> {
  const d = await fetchData(ctx, TRANSFORM_ROUTES.tokenizationKey.read, params(p));
  if (!d) return undefined;
  // A new key is at version 1 with nothing trimmed: what a server that leaves them out means.
  return { latestVersion: 1, minAvailableVersion: 0, ...keyConfigSet.decode(d, p) } as TokenizationKeyConfigState;
}

async function configure(ctx: Context, p: TokenizationKeyConfigState): Promise<void> {
  await ctx.client("secrets").request({ route: TRANSFORM_ROUTES.tokenizationKey.config, params: params(p), body: { min_decryption_version: p.minDecryptionVersion }, retry: "safe" });
}

export const tokenizationKeyConfigDefinition: ResourceDefinition<TokenizationKeyConfigState, TokenizationKeyConfigState> = {
  kind: "secrets:TransformTokenizationKeyConfig",
  routes: { read: TRANSFORM_ROUTES.tokenizationKey.read, config: TRANSFORM_ROUTES.tokenizationKey.config, rotate: TRANSFORM_ROUTES.tokenizationKey.rotate, list: TRANSFORM_ROUTES.tokenizationKey.list },
  path: { route: TRANSFORM_ROUTES.tokenizationKey.read, inputs: { name: "transformation" } },
  discover: { list: TRANSFORM_ROUTES.tokenizationKey.list },
  ...keyConfigSet,
  async create(ctx, inputs) {
    const id = pathOf(TRANSFORM_ROUTES.tokenizationKey.read, params(inputs));
    const current = await fetchData(ctx, TRANSFORM_ROUTES.tokenizationKey.read, params(inputs));
    if (!current) throw new Error(`${id} does not exist: create the TokenizationTransformation ${inputs.transformation} first`);
    // Decoded without the inputs as prior: a setting the server leaves out is its default, not the program's value.
    if (keyConfigSet.decode(current, {}).minDecryptionVersion !== inputs.minDecryptionVersion) await configure(ctx, inputs);
    return { id, outs: await readBack(id, inputs, () => readConfig(ctx, inputs)) };
  },
  read: (ctx, _id, props) => readConfig(ctx, props),
  async update(ctx, id, olds, news) {
    const rotate = news.rotationTrigger !== undefined && news.rotationTrigger !== olds.rotationTrigger;
    // Rotate first, so a minDecryptionVersion naming the new version is valid when it is set.
    if (rotate) await rotateOnce(ctx, TRANSFORM_ROUTES.tokenizationKey, params(news), `tokenization key ${news.transformation}`);
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

export type TokenizationKeyConfigArgs = ArgsOf<typeof tokenizationKeyConfigFields> & ConnectionArgs<"secrets">;

/**
 * Key settings of a tokenization transformation (`/{mount}/tokenization/keys/{name}/config`), with
 * rotation on purpose through `rotationTrigger`. Destroying it leaves the keys as they are.
 *
 * @example
 * ```ts
 * new svc.secrets.transform.TokenizationKeyConfig("ssn-keys", { transformation: ssn.name, rotationTrigger: "2026-q4" });
 * ```
 */
export interface TokenizationKeyConfig extends OutputsOf<typeof tokenizationKeyConfigFields> {}
export class TokenizationKeyConfig extends SvcResource(tokenizationKeyConfigDefinition) { constructor(name: string, args: TokenizationKeyConfigArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }
