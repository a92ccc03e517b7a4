/**
 * Every endpoint of the plugin catalog, as data: `"METHOD /path/{param}"` relative to the secrets
 * service's `/v1`, grouped by API object (seed 001, "Endpoints"). The only place in
 * src/secrets/plugins where a route is written.
 */
export const PLUGINS_ROUTES = {
  /** Plugin (catalog entry), seed 001 "Endpoints › Plugin catalog". */
  catalogEntry: {
    /** Registers or updates (sudo). */
    write: "PUT /sys/plugins/catalog/{type}/{name}",
    /** Sudo. */
    read: "GET /sys/plugins/catalog/{type}/{name}",
    /** Sudo. */
    delete: "DELETE /sys/plugins/catalog/{type}/{name}",
    /** Every plugin name, grouped by type. */
    catalog: "GET /sys/plugins/catalog",
    listType: "LIST /sys/plugins/catalog/{type}",
  },
} as const;
