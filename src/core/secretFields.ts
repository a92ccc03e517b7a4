/**
 * TEMPORARY: the wire names of the fields that are secret today, written out by hand. The field
 * declarations (src/core/definition.ts) are being redesigned to carry a `secret` flag; each
 * declaration will then register its own wire name with registerSecretField and this list goes.
 * Until then a secret field added to an object must be added here too.
 */
import { registerSecretField } from "../http/redact";

const SECRET_WIRE_NAMES = [
  // Both services' tokens: notification configurations (run service), registry access and role
  // credentials, replication activation tokens, and the header every request carries.
  "token", "x-svc-token", "borrower_client_token",
  // Directory engine: bind password, check-out and role credentials.
  "bindpass", "password", "current_password", "last_password",
  // Transform engine: store passwords (above), plaintexts and tokens passing through the functions.
  "value", "values", "decoded_value", "encoded_value", "plaintext",
  // Key management: a KMS provider's credentials as a whole, and the names of its secret members.
  "credentials", "access_key", "secret_key", "session_token", "client_secret", "service_account_file",
  // MFA method keys, registry client key, plugin environment (KEY=value pairs).
  "integration_key", "client_key", "env",
] as const;

for (const name of SECRET_WIRE_NAMES) registerSecretField(name);
