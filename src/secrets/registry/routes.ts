/**
 * Every endpoint of the service-registry engine, as data: `"METHOD /path/{param}"` relative to the
 * secrets service's `/v1`, grouped by API object (seed 002, "Endpoints"). The only place in
 * src/secrets/registry where a route is written.
 */
export const REGISTRY_ROUTES = {
  /** Access configuration, seed 002 "Endpoints › Service-registry engine (prefix {registry_mount})". */
  access: {
    write: "POST /{mount}/config/access",
    read: "GET /{mount}/config/access",
    delete: "DELETE /{mount}/config/access",
  },
  /** Role and its credentials, seed 002 "Endpoints › Service-registry engine (prefix {registry_mount})". */
  role: {
    write: "POST /{mount}/roles/{name}",
    read: "GET /{mount}/roles/{name}",
    delete: "DELETE /{mount}/roles/{name}",
    list: "LIST /{mount}/roles",
    creds: "GET /{mount}/creds/{name}",
  },
} as const;

/** Where the service-registry engine is mounted unless a `mount` input says otherwise. */
export const DEFAULT_REGISTRY_MOUNT = "registry";
