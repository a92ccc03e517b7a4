/**
 * Every endpoint of the MFA area, as data: `"METHOD /path/{param}"` relative to the secrets
 * service's `/v1`, grouped by API object (seed 001, "Endpoints"). The only place in src/secrets/mfa
 * where a route is written.
 */
export const MFA_ROUTES = {
  /** Dual-factor MFA method, seed 001 "Endpoints › Dual-factor MFA method". */
  dualFactorMethod: {
    create: "POST /identity/mfa/method/dualfactor",
    read: "GET /identity/mfa/method/dualfactor/{id}",
    update: "POST /identity/mfa/method/dualfactor/{id}",
    delete: "DELETE /identity/mfa/method/dualfactor/{id}",
    list: "LIST /identity/mfa/method/dualfactor",
  },
} as const;
