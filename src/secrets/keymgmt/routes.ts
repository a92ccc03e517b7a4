/**
 * Every endpoint of key management, as data: `"METHOD /path/{param}"` relative to the secrets
 * service's `/v1`, grouped by API object (seed 001, "Endpoints"). The only place in
 * src/secrets/keymgmt where a route is written.
 */
export const KEYMGMT_ROUTES = {
  /** Key, seed 001 "Endpoints › Key management". */
  key: {
    /** Create (with `type`) and update (`deletion_allowed`, `min_enabled_version`) share the route. */
    write: "POST /{mount}/key/{name}",
    read: "GET /{mount}/key/{name}",
    list: "LIST /{mount}/key",
    rotate: "POST /{mount}/key/{name}/rotate",
    delete: "DELETE /{mount}/key/{name}",
    /** Providers holding the key. */
    providers: "LIST /{mount}/key/{name}/kms",
  },
  /** KMS provider, seed 001 "Endpoints › Key management". */
  kmsProvider: {
    /** Creates the provider, or updates it when it exists. */
    write: "POST /{mount}/kms/{name}",
    read: "GET /{mount}/kms/{name}",
    list: "LIST /{mount}/kms",
    delete: "DELETE /{mount}/kms/{name}",
    /** Keys distributed to the provider. */
    keys: "LIST /{mount}/kms/{name}/key",
  },
  /** Key in a KMS provider (a distribution), seed 001 "Endpoints › Key management". */
  keyDistribution: {
    create: "POST /{mount}/kms/{kms}/key/{key}",
    read: "GET /{mount}/kms/{kms}/key/{key}",
    /** Keys distributed to one provider. */
    list: "LIST /{mount}/kms/{kms}/key",
    delete: "DELETE /{mount}/kms/{kms}/key/{key}",
  },
} as const;
