/** Reads and lists of the engine's objects, and tokenization key actions. */
import { z } from "../../../core/zod";
import type { Context } from "../../../core/definition";
import type { FunctionDefinition } from "../../../core/fn";
import { forms } from "../../../core/forms";
import { dataOf } from "../../envelope";
import { listNames, type NameList } from "../../pathObject";
import { tokenizationKeyConfigFields } from "../tokenizationKeyConfig";
import { asText, field, fieldSet, output, pick, reported, type FieldSet, type Fields, type InfoOf, type PlainArgsOf, type ReadOf, type ReportedFields } from "../../../core/fields";
import { roleFields } from "../role";
import { storeFields } from "../store";
import { transformationFields } from "../transformation";
import { tokenizationTransformationFields } from "../tokenizationTransformation";
import { mountArg, mountOf, objectName, post, readableName } from "./common";
import { TRANSFORM_ROUTES } from "../routes";

const refFieldsOwn = {
  /** Name of the object (built-ins such as `builtin/internal` too, where the service has them). */
  name: field(readableName),
};

const refFields: typeof mountArg & typeof refFieldsOwn = { ...mountArg, ...refFieldsOwn };

/** Which object to read. */
export type RefArgs = PlainArgsOf<typeof refFields>;

/** Which mount to list. */
export type MountArgs = PlainArgsOf<typeof mountArg>;

const listRolesFieldsOwn = {
  /** Glob on role names (`*` any run, `?` one character). Default `*`. */
  filter: field(() => z.string().min(1), { optional: true }),
};

const listRolesFields: typeof mountArg & typeof listRolesFieldsOwn = { ...mountArg, ...listRolesFieldsOwn };

/** Which mount to list the roles of, and which names. */
export type ListRolesArgs = PlainArgsOf<typeof listRolesFields>;

// Key actions take only the engine's own transformations, never a built-in name.
const keyRefFieldsOwn = {
  /** Name of the tokenization transformation. */
  name: field(objectName),
};

const keyRefFields: typeof mountArg & typeof keyRefFieldsOwn = { ...mountArg, ...keyRefFieldsOwn };

/** Which tokenization transformation's keys. */
export type KeyRefArgs = PlainArgsOf<typeof keyRefFields>;

const trimFieldsOwn = {
  /** Oldest key version to keep; older ones are deleted for good. At most minDecryptionVersion. */
  minAvailableVersion: field(() => z.number().int().min(1, "must be 1 or more")),
};

const trimFields: typeof keyRefFields & typeof trimFieldsOwn = { ...keyRefFields, ...trimFieldsOwn };

/** Which keys to trim, and the oldest version to keep. */
export type TrimArgs = PlainArgsOf<typeof trimFields>;

/** Names, sorted; empty when there are none. */
export type NamesResult = NameList;

/** How a read reports a name or a type: as text, "" when left out. */
const text = { default: "", decode: asText };
/** How a read reports a list of names: as text, empty when left out. */
const names = { default: [] as string[], decode: (v: unknown) => (Array.isArray(v) ? v.map(String) : []) };

const roleInfoRules = { name: text, transformations: names };
/** A role as `GET /{mount}/role/{name}` reads it: its fields are the Role resource's. */
const roleInfoFields: ReportedFields<typeof roleFields, typeof roleInfoRules> = reported(roleFields, roleInfoRules);

export interface RoleInfo extends ReadOf<typeof roleInfoFields> {}

const transformationInfoRules = { name: text, type: text, tweakSource: text, maskingCharacter: { decode: String }, allowedRoles: names };
const tokenizationInfoRules = { mappingMode: { decode: String }, stores: { decode: names.decode } };
const transformationInfoOwn = {
  /** Its templates (one for fpe and masking; empty for tokenization). */
  templates: output<string[]>(names),
  /** tokenization: longest life of a token in seconds (0: never expires), where the server reads it back. */
  maxTtl: output<number>({ optional: true, decode: Number }),
};
/** A transformation's fields are those of the resources that write it; a read gives its templates as a list, and its lifetime in seconds. */
const transformationInfoFields: ReportedFields<typeof transformationFields, typeof transformationInfoRules> & typeof transformationInfoOwn
  & ReportedFields<typeof tokenizationTransformationFields, typeof tokenizationInfoRules> = {
    ...reported(transformationFields, transformationInfoRules), ...transformationInfoOwn, ...reported(tokenizationTransformationFields, tokenizationInfoRules),
  };

/** A transformation as `GET /{mount}/transformation/{name}` reads it; fields a server leaves out are absent. */
export interface TransformationInfo extends ReadOf<typeof transformationInfoFields> {}

const storeInfoRules = { name: text, type: text, driver: { decode: String }, connectionString: text, supportedTransformations: names, schema: { decode: String } };
/** A store as the service reads it: the Store resource's fields, never its username or password. */
const storeInfoFields: ReportedFields<typeof storeFields, typeof storeInfoRules> = reported(storeFields, storeInfoRules);

/** A store as the service reads it: never its username or password. */
export interface StoreInfo extends ReadOf<typeof storeInfoFields> {}

const keyInfoFieldsOwn = {
  /** Name of the tokenization transformation. */
  name: output<string>(),
};

const keyInfoFields: Pick<typeof tokenizationKeyConfigFields, "latestVersion" | "minAvailableVersion" | "minDecryptionVersion"> & typeof keyInfoFieldsOwn = { ...pick(tokenizationKeyConfigFields, "latestVersion", "minAvailableVersion", "minDecryptionVersion"), ...keyInfoFieldsOwn };
const keyInfoSet = fieldSet(keyInfoFields);

/** Key versions of a tokenization transformation. */
export interface TokenizationKeyInfo extends InfoOf<typeof keyInfoFields> {}

async function get(ctx: Context, route: string, a: RefArgs): Promise<Record<string, unknown>> {
  // Path parameters are encoded, so a built-in's slash goes into the route itself.
  const builtin = a.name.startsWith("builtin/");
  const res = await ctx.client("secrets").request({
    route: builtin ? route.replace("{name}", "builtin/{name}") : route,
    params: { mount: mountOf(a), name: builtin ? a.name.slice("builtin/".length) : a.name },
  });
  return dataOf(res.body);
}

const roleInfoSet = fieldSet(roleInfoFields);
const transformationInfoSet = fieldSet(transformationInfoFields);
const storeInfoSet = fieldSet(storeInfoFields);

/** A read's data through its record, named as asked (a built-in's `builtin/` prefix kept). */
const asRead = <R extends Fields>(set: FieldSet<R>, d: Record<string, unknown>, name: string) => set.decode({ ...d, name }, {}) as ReadOf<R>;

// A version count the server leaves out reads as 0 (none reported); minDecryptionVersion as its default, 1.
const keyInfo = (d: Record<string, unknown>, name: string): TokenizationKeyInfo =>
  ({ latestVersion: 0, minAvailableVersion: 0, ...keyInfoSet.decode(d, { name }) }) as TokenizationKeyInfo;

function lister(name: string, route: string): FunctionDefinition<MountArgs, NamesResult> {
  return { name, fields: mountArg, sideEffects: false, run: async (ctx, a) => ({ keys: (await listNames(ctx, route, { mount: mountOf(a) })).sort() }) };
}

const defs = {
  getRole: { name: "getRole", fields: refFields, sideEffects: false,
    run: async (ctx, a) => asRead(roleInfoSet, await get(ctx, TRANSFORM_ROUTES.role.read, a), a.name) } as FunctionDefinition<RefArgs, RoleInfo>,
  listRoles: { name: "listRoles", fields: listRolesFields, sideEffects: false,
    run: async (ctx, a) => ({ keys: (await listNames(ctx, TRANSFORM_ROUTES.role.list, { mount: mountOf(a) }, a.filter ? { filter: a.filter } : undefined)).sort() }) } as FunctionDefinition<ListRolesArgs, NamesResult>,
  getTransformation: { name: "getTransformation", fields: refFields, sideEffects: false,
    run: async (ctx, a) => asRead(transformationInfoSet, await get(ctx, TRANSFORM_ROUTES.transformation.read, a), a.name) } as FunctionDefinition<RefArgs, TransformationInfo>,
  listTransformations: lister("listTransformations", TRANSFORM_ROUTES.transformation.list),
  getStore: { name: "getStore", fields: refFields, sideEffects: false,
    run: async (ctx, a) => asRead(storeInfoSet, await get(ctx, TRANSFORM_ROUTES.store.read, a), a.name) } as FunctionDefinition<RefArgs, StoreInfo>,
  listStores: lister("listStores", TRANSFORM_ROUTES.store.list),
  listTemplates: lister("listTemplates", TRANSFORM_ROUTES.template.list),
  listAlphabets: lister("listAlphabets", TRANSFORM_ROUTES.alphabet.list),
  getTokenizationKey: { name: "getTokenizationKey", fields: keyRefFields, sideEffects: false,
    run: async (ctx, a) => keyInfo(await get(ctx, TRANSFORM_ROUTES.tokenizationKey.read, a), a.name) } as FunctionDefinition<KeyRefArgs, TokenizationKeyInfo>,
  listTokenizationKeys: lister("listTokenizationKeys", TRANSFORM_ROUTES.tokenizationKey.list),
  rotateTokenizationKey: { name: "rotateTokenizationKey", fields: keyRefFields, sideEffects: true,
    run: async (ctx, a) => {
      await post(ctx, TRANSFORM_ROUTES.tokenizationKey.rotate, { mount: mountOf(a), name: a.name }, {});
      return keyInfo(await get(ctx, TRANSFORM_ROUTES.tokenizationKey.read, a), a.name);
    } } as FunctionDefinition<KeyRefArgs, TokenizationKeyInfo>,
  trimTokenizationKey: { name: "trimTokenizationKey", fields: trimFields, sideEffects: true,
    run: async (ctx, a) => {
      await post(ctx, TRANSFORM_ROUTES.tokenizationKey.trim, { mount: mountOf(a), name: a.name }, { min_available_version: a.minAvailableVersion });
      return keyInfo(await get(ctx, TRANSFORM_ROUTES.tokenizationKey.read, a), a.name);
    } } as FunctionDefinition<TrimArgs, TokenizationKeyInfo>,
};

/** A role's transformations. */
export const getRole = forms(defs.getRole).promise;
/** Output form of {@link getRole}. */
export const getRoleOutput = forms(defs.getRole).output;
/** Role names, optionally matching the `filter` glob. */
export const listRoles = forms(defs.listRoles, { argsOptional: true }).promise;
/** Output form of {@link listRoles}. */
export const listRolesOutput = forms(defs.listRoles, { argsOptional: true }).output;
/** A transformation as the service reads it (`templates` list, `maxTtl` in seconds). */
export const getTransformation = forms(defs.getTransformation).promise;
/** Output form of {@link getTransformation}. */
export const getTransformationOutput = forms(defs.getTransformation).output;
/** Transformation names. */
export const listTransformations = forms(defs.listTransformations, { argsOptional: true }).promise;
/** Output form of {@link listTransformations}. */
export const listTransformationsOutput = forms(defs.listTransformations, { argsOptional: true }).output;
/** A store, `builtin/internal` too (never its credentials). */
export const getStore = forms(defs.getStore).promise;
/** Output form of {@link getStore}. */
export const getStoreOutput = forms(defs.getStore).output;
/** Store names (the built-in store is not listed). */
export const listStores = forms(defs.listStores, { argsOptional: true }).promise;
/** Output form of {@link listStores}. */
export const listStoresOutput = forms(defs.listStores, { argsOptional: true }).output;
/** Template names (built-ins are not listed). */
export const listTemplates = forms(defs.listTemplates, { argsOptional: true }).promise;
/** Output form of {@link listTemplates}. */
export const listTemplatesOutput = forms(defs.listTemplates, { argsOptional: true }).output;
/** Alphabet names (built-ins are not listed). */
export const listAlphabets = forms(defs.listAlphabets, { argsOptional: true }).promise;
/** Output form of {@link listAlphabets}. */
export const listAlphabetsOutput = forms(defs.listAlphabets, { argsOptional: true }).output;
/** Key versions of a tokenization transformation. */
export const getTokenizationKey = forms(defs.getTokenizationKey).promise;
/** Output form of {@link getTokenizationKey}. */
export const getTokenizationKeyOutput = forms(defs.getTokenizationKey).output;
/** Names of the tokenization transformations (which have keys). */
export const listTokenizationKeys = forms(defs.listTokenizationKeys, { argsOptional: true }).promise;
/** Output form of {@link listTokenizationKeys}. */
export const listTokenizationKeysOutput = forms(defs.listTokenizationKeys, { argsOptional: true }).output;
/**
 * Rotates a tokenization key (new tokens use the new version). Every call rotates: none during
 * preview. Prefer TokenizationKeyConfig's `rotationTrigger` for rotation as part of a deployment.
 */
export const rotateTokenizationKey = forms(defs.rotateTokenizationKey).promise;
/** Output form of {@link rotateTokenizationKey}: unknown during preview. */
export const rotateTokenizationKeyOutput = forms(defs.rotateTokenizationKey).output;
/** Deletes key versions below `minAvailableVersion` for good (tokens made with them stop decoding). None during preview. */
export const trimTokenizationKey = forms(defs.trimTokenizationKey).promise;
/** Output form of {@link trimTokenizationKey}: unknown during preview. */
export const trimTokenizationKeyOutput = forms(defs.trimTokenizationKey).output;
