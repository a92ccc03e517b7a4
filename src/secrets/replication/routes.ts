/** Every endpoint of performance replication, as data (relative to the secrets service's `/v1`). */
export const REPLICATION_ROUTES = {
  status: "GET /sys/replication/performance/status",
  primaryEnable: "POST /sys/replication/performance/primary/enable",
  primaryDemote: "POST /sys/replication/performance/primary/demote",
  primaryDisable: "POST /sys/replication/performance/primary/disable",
  secondaryToken: "POST /sys/replication/performance/primary/secondary-token",
  revokeSecondary: "POST /sys/replication/performance/primary/revoke-secondary",
  filterWrite: "POST /sys/replication/performance/primary/paths-filter/{id}",
  filterRead: "GET /sys/replication/performance/primary/paths-filter/{id}",
  filterDelete: "DELETE /sys/replication/performance/primary/paths-filter/{id}",
  primaryDynamicFilter: "GET /sys/replication/performance/primary/dynamic-filter/{id}",
  secondaryDynamicFilter: "GET /sys/replication/performance/secondary/dynamic-filter/{id}",
  generatePublicKey: "POST /sys/replication/performance/secondary/generate-public-key",
  secondaryEnable: "POST /sys/replication/performance/secondary/enable",
  secondaryPromote: "POST /sys/replication/performance/secondary/promote",
  secondaryDisable: "POST /sys/replication/performance/secondary/disable",
  updatePrimary: "POST /sys/replication/performance/secondary/update-primary",
} as const;
