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
// Values already registered, so registering one again (every create of a resource) costs a lookup.
const registered = new Set<string>();

/**
 * The matcher: every form, indexed by its last characters (token prefixes such as "hvs.CAES" are
 * shared by thousands of secrets, their ends are not), so redact() scans a message once and checks
 * only the forms that can end at each position. Its cost follows the message's length, not the
 * number of secrets registered.
 */
const KEY = MIN_SECRET_LENGTH;
const byEnd = new Map<string, string[]>();

function index(form: string): void {
  if (secrets.has(form)) return;
  secrets.add(form);
  const key = form.slice(-KEY);
  const list = byEnd.get(key);
  if (list) list.push(form);
  else byEnd.set(key, [form]);
}

function unicodeEscaped(value: string, upper: boolean): string {
  return value.replace(/[^\x20-\x7e]|[<>&]/g, (c) => {
    const hex = c.charCodeAt(0).toString(16).padStart(4, "0");
    return `\\u${upper ? hex.toUpperCase() : hex}`;
  });
}

// Registered values not yet indexed: creates register a value each, while most processes never
// redact a message at all, so the forms are worked out when the next message needs them.
let pending: string[] = [];

/** Register a secret value so that redact() removes it from every message from now on. */
export function registerSecret(value: string): void {
  if (typeof value !== "string" || registered.has(value) || value.trim().length < MIN_SECRET_LENGTH) return;
  registered.add(value);
  pending.push(value);
}

function indexPending(): void {
  const values = pending;
  pending = [];
  for (const value of values) indexForms(value);
}

function indexForms(value: string): void {
  // Unreserved URL characters read the same in every form below: one form to index.
  if (/^[A-Za-z0-9._~-]+$/.test(value)) {
    index(value);
    return;
  }
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
  for (const f of forms) index(f);
}

/** Replace every registered secret, and whatever follows "Bearer ", with "[REDACTED]". */
export function redact(text: string): string {
  if (pending.length > 0) indexPending();
  let out = String(text);
  if (byEnd.size > 0) {
    // Every occurrence as [start, end); overlapping ones are masked as one span.
    const spans: [number, number][] = [];
    for (let end = KEY; end <= out.length; end++) {
      const forms = byEnd.get(out.slice(end - KEY, end));
      if (!forms) continue;
      for (const form of forms) {
        const start = end - form.length;
        if (start >= 0 && out.startsWith(form, start)) spans.push([start, end]);
      }
    }
    if (spans.length > 0) {
      spans.sort((x, y) => x[0] - y[0] || y[1] - x[1]);
      let result = "";
      let last = 0;
      for (const [start, end] of spans) {
        if (end <= last) continue;
        result += start >= last ? out.slice(last, start) + MASK : "";
        last = end;
      }
      out = result + out.slice(last);
    }
  }
  // A bearer credential we were never told about is still a credential.
  return out.replace(/(Bearer\s+)(?!\[REDACTED\])[^\s"',;]+/gi, `$1${MASK}`);
}
