/** Every endpoint of the service-registry engine, as data. */
export const REGISTRY_ROUTES = {
  accessWrite: "POST /{mount}/config/access",
  accessRead: "GET /{mount}/config/access",
  accessDelete: "DELETE /{mount}/config/access",
  roleWrite: "POST /{mount}/roles/{name}",
  roleRead: "GET /{mount}/roles/{name}",
  roleDelete: "DELETE /{mount}/roles/{name}",
  roleList: "LIST /{mount}/roles",
  creds: "GET /{mount}/creds/{name}",
} as const;

/** Where the service-registry engine is mounted unless a `mount` input says otherwise. */
export const DEFAULT_REGISTRY_MOUNT = "registry";
