// Redaction of credentials from any text that may reach a user, a log or Pulumi state.
// The registry is per process: these modules are required at call time inside the
// dynamic-provider host, so nothing here is ever serialized with a provider.

const MASK = "[REDACTED]";

// Values registered so far, kept as every form in which a server might echo them back
// (raw, JSON-escaped inside a quoted string, percent-encoded in a URL).
const secrets = new Set<string>();

/** Register a secret value so that redact() removes it from every message from now on. */
export function registerSecret(value: string): void {
  if (typeof value !== "string" || value.length === 0) return;
  secrets.add(value);
  const jsonEscaped = JSON.stringify(value).slice(1, -1);
  if (jsonEscaped !== value) secrets.add(jsonEscaped);
  const uriEncoded = encodeURIComponent(value);
  if (uriEncoded !== value) secrets.add(uriEncoded);
}

/** Replace every registered secret, and whatever follows "Bearer ", with "[REDACTED]". */
export function redact(text: string): string {
  let out = String(text);
  // Longest first, so a secret that contains another registered secret is removed whole.
  const ordered = [...secrets].sort((a, b) => b.length - a.length);
  for (const s of ordered) out = out.split(s).join(MASK);
  // A bearer credential we were never told about is still a credential.
  return out.replace(/(Bearer\s+)(?!\[REDACTED\])[^\s"',;]+/gi, `$1${MASK}`);
}
