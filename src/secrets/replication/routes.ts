/**
 * Every endpoint of performance replication, as data: `"METHOD /path/{param}"` relative to the
 * secrets service's `/v1`, grouped by API object (seed 001, "Endpoints"). The only place in
 * src/secrets/replication where a route is written.
 */
export const REPLICATION_ROUTES = {
  /** Replication status, seed 001 "Endpoints › Performance replication". */
  status: {
    read: "GET /sys/replication/performance/status",
  },
  /** Performance primary, seed 001 "Endpoints › Performance replication". */
  primary: {
    enable: "POST /sys/replication/performance/primary/enable",
    demote: "POST /sys/replication/performance/primary/demote",
    disable: "POST /sys/replication/performance/primary/disable",
  },
  /** Secondary activation token (issued and revoked on the primary), seed 001 "Endpoints › Performance replication". */
  secondaryToken: {
    create: "POST /sys/replication/performance/primary/secondary-token",
    revoke: "POST /sys/replication/performance/primary/revoke-secondary",
  },
  /** Paths filter and the dynamic filters it yields on each side, seed 001 "Endpoints › Performance replication". */
  pathsFilter: {
    write: "POST /sys/replication/performance/primary/paths-filter/{id}",
    read: "GET /sys/replication/performance/primary/paths-filter/{id}",
    delete: "DELETE /sys/replication/performance/primary/paths-filter/{id}",
    primaryDynamic: "GET /sys/replication/performance/primary/dynamic-filter/{id}",
    secondaryDynamic: "GET /sys/replication/performance/secondary/dynamic-filter/{id}",
  },
  /** Performance secondary, seed 001 "Endpoints › Performance replication". */
  secondary: {
    generatePublicKey: "POST /sys/replication/performance/secondary/generate-public-key",
    enable: "POST /sys/replication/performance/secondary/enable",
    promote: "POST /sys/replication/performance/secondary/promote",
    disable: "POST /sys/replication/performance/secondary/disable",
    updatePrimary: "POST /sys/replication/performance/secondary/update-primary",
  },
} as const;
