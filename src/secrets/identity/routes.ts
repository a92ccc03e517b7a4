/**
 * Every endpoint of the identity area, as data: `"METHOD /path/{param}"` relative to the secrets
 * service's `/v1`, grouped by API object (seed 001, "Endpoints"). The only place in
 * src/secrets/identity where a route is written.
 */
export const IDENTITY_ROUTES = {
  /** Entity alias, seed 001 "Endpoints › Entity alias". */
  entityAlias: {
    create: "POST /identity/entity-alias",
    read: "GET /identity/entity-alias/id/{id}",
    update: "POST /identity/entity-alias/id/{id}",
    delete: "DELETE /identity/entity-alias/id/{id}",
    list: "LIST /identity/entity-alias/id",
  },
} as const;
