/**
 * The transform engine (default mount `transform`): templates, alphabets, roles, the
 * transformations, tokenization stores and keys, and the functions that encode and decode values.
 *
 * Every transform object has `mount` (default `transform`; **replaces**) and a `name` (**replaces**)
 * except where noted; names starting with `builtin/` are reserved and refused by check (the
 * built-ins `builtin/numeric`, `builtin/alphalower`, `builtin/alphaupper`,
 * `builtin/alphanumericlower`, `builtin/alphanumericupper`, `builtin/alphanumeric`,
 * `builtin/creditcardnumber`, `builtin/socialsecuritynumber` and the store `builtin/internal` can be
 * referenced). Path-keyed objects take `adopt` like the others. Deleting something still in use
 * fails before any request with a `ConflictError` naming the user and the fix: a transformation
 * used by a role, a template used by a transformation, a store used by a tokenization
 * transformation, an alphabet used by a template.
 *
 * Transformations are read from `GET /{mount}/transformation/{name}` (`templates` list →
 * `template`, `max_ttl` in seconds or text → your spelling when equal, role lists sorted), so a
 * fresh read never diffs with the inputs. The seed's read lists only `allowed_roles`, `templates`,
 * `tweak_source` and `type`: a field a server leaves out of the read (`mapping_mode`, `stores`,
 * `max_ttl`, `masking_character`) keeps the value recorded in state, as store reads do for the
 * fields they omit, so it neither diffs nor (for `mappingMode` and `stores`) replaces the
 * transformation on every up; drift in such a field cannot be seen on those servers. `type`,
 * `mappingMode` and `stores` cannot change in place on real servers: changing them replaces the
 * transformation, and since the name is reused the old one is deleted first (its tokens go with it
 * unless they live in a SQL store).
 *
 * @example
 * ```ts
 * const store = new svc.secrets.transform.Store("tokens", { name: "tokens", driver: "postgres",
 *   connectionString: "postgresql://{{username}}:{{password}}@db:5432/tokens", username: "tokenizer", password: cfg.requireSecret("dbPassword") });
 * // Given the Store's connection string and schema, the schema call follows the Store when it moves.
 * new svc.secrets.transform.StoreSchema("tokens-schema", { store: store.name, connectionString: store.connectionString, schema: store.schema,
 *   username: "dbadmin", password: cfg.requireSecret("dbAdminPassword") });
 * const ssn = new svc.secrets.transform.TokenizationTransformation("ssn", { name: "ssn", stores: [store.name], allowedRoles: ["payments"] });
 * new svc.secrets.transform.Role("payments", { name: "payments", transformations: [ssn.name] });
 * ```
 */
// npm run docs writes what follows, to the end mark, from this folder's files (src/scripts/docs/blocks.ts): a new file's line comes last, a line moved by hand stays.
export { Template, type TemplateArgs } from "./template";
export { Alphabet, type AlphabetArgs } from "./alphabet";
export { Role, type RoleArgs } from "./role";
export { FpeTransformation, type FpeTransformationArgs } from "./fpeTransformation";
export { MaskingTransformation, type MaskingTransformationArgs } from "./maskingTransformation";
export { TokenizationTransformation, type TokenizationTransformationArgs } from "./tokenizationTransformation";
export { Transformation, type TransformationArgs } from "./transformation";
export { Store, type StoreArgs } from "./store";
export { StoreSchema, type StoreSchemaArgs } from "./storeSchema";
export { TokenizationKeyConfig, type TokenizationKeyConfigArgs } from "./tokenizationKeyConfig";
// (end of what npm run docs writes)
export { type TweakSource } from "./fpeTransformation";
export { type MappingMode } from "./tokenizationTransformation";
export { type TransformationType } from "./transformation";
export { type StoreDriver } from "./store";
export * from "./functions";
