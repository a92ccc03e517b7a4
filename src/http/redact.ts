// Redaction of credentials from any text that may reach a user, a log or Pulumi state.
// The registry is per process: these modules are required at call time inside the
// dynamic-provider host, so nothing here is ever serialized with a provider.

const MASK = "[REDACTED]";

/**
 * Shorter values are not redacted: a one-character token or a region such as "eu" would mangle
 * every message ("[REDACTED]-west-1"), and values this short are not secrets worth hiding.
 */
export const MIN_SECRET_LENGTH = 8;

// Values registered so far, kept as every form in which a server might echo them back: raw,
// JSON-escaped inside a quoted string, with non-ASCII and HTML-sensitive characters written as
// \uXXXX (either hex case, as Go and others do), and percent-encoded in a URL or form.
const secrets = new Set<string>();

function unicodeEscaped(value: string, upper: boolean): string {
  return value.replace(/[^\x20-\x7e]|[<>&]/g, (c) => {
    const hex = c.charCodeAt(0).toString(16).padStart(4, "0");
    return `\\u${upper ? hex.toUpperCase() : hex}`;
  });
}

/** Register a secret value so that redact() removes it from every message from now on. */
export function registerSecret(value: string): void {
  if (typeof value !== "string" || value.trim().length < MIN_SECRET_LENGTH) return;
  const forms = [value, JSON.stringify(value).slice(1, -1)];
  try {
    forms.push(encodeURIComponent(value), encodeURIComponent(value).replace(/%20/g, "+"), encodeURI(value));
  } catch {
    // A lone surrogate cannot be percent-encoded: no server can echo it that way either.
  }
  for (const upper of [false, true]) {
    const escaped = unicodeEscaped(value, upper);
    forms.push(escaped, JSON.stringify(escaped).slice(1, -1));
  }
  for (const f of forms) secrets.add(f);
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
