// Redaction of credentials from any text that may reach a user, a log or Pulumi state.
// The registry is per process: these modules are required at call time inside the
// dynamic-provider host, so nothing here is ever serialized with a provider.

const MASK = "[REDACTED]";

/**
 * Shorter values are not redacted wherever they appear: a one-character token or a region such as
 * "eu" would mangle every message ("[REDACTED]-west-1"). They are still redacted where they stand
 * as the value of a secret field (see registerSecretField).
 */
export const MIN_SECRET_LENGTH = 8;

/**
 * The shortest run of a registered secret that is masked wherever it appears. A server that cuts
 * its echo short (or starts it late) leaves a piece of the value: six characters of a random
 * secret are already specific to it, and shorter pieces of ordinary text match too often.
 */
export const MIN_RUN_LENGTH = 6;

// Values registered so far, so registering one again (every create of a resource) costs a lookup.
const registered = new Set<string>();
// Registered values of one repeated character: the run index skips such runs (see redactOwn).
const uniform = new Set<string>();
// Registered values not yet indexed: creates register a value each, while most processes never
// redact a message at all, so the index is built when the next message needs it.
let pending: string[] = [];

/*
 * The index: every run of MIN_RUN_LENGTH characters of every form in which a server may echo a
 * secret (raw, JSON-escaped, with non-ASCII and HTML-sensitive characters as \uXXXX in either hex
 * case, percent-encoded). redact() slides a window over the message once and asks whether each
 * window is in the index, so its cost follows the message's length, not the number of secrets.
 *
 * Six Latin-1 characters pack exactly into 48 bits, kept as two 32-bit words in an open-addressing
 * hash set (no string per run: 10,000 secrets of 40 characters take a few MB instead of the ~18 MB
 * of a Set of strings). Runs holding a wider character (a raw secret in another script) are kept
 * as strings in `wide`.
 */
const OCCUPIED = 0x10000;
let highs = new Uint32Array(1024);
let lows = new Uint32Array(1024);
let stored = 0;
const wide = new Set<string>();

function slotOf(high: number, low: number, mask: number): number {
  let h = Math.imul(low ^ Math.imul(high, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h & mask;
}

function has(high: number, low: number): boolean {
  const mask = highs.length - 1;
  const tagged = high | OCCUPIED;
  for (let i = slotOf(high, low, mask); highs[i] !== 0; i = (i + 1) & mask) {
    if (highs[i] === tagged && lows[i] === low) return true;
  }
  return false;
}

function put(high: number, low: number): void {
  if ((stored + 1) * 4 > highs.length * 3) grow();
  const mask = highs.length - 1;
  const tagged = high | OCCUPIED;
  let i = slotOf(high, low, mask);
  for (; highs[i] !== 0; i = (i + 1) & mask) if (highs[i] === tagged && lows[i] === low) return;
  highs[i] = tagged;
  lows[i] = low;
  stored++;
}

function grow(): void {
  const oldHighs = highs;
  const oldLows = lows;
  highs = new Uint32Array(oldHighs.length * 2);
  lows = new Uint32Array(oldLows.length * 2);
  stored = 0;
  for (let i = 0; i < oldHighs.length; i++) if (oldHighs[i] !== 0) put(oldHighs[i] & 0xffff, oldLows[i]);
}

/** Slots and wide runs in the index, for the benchmark's memory figure. @internal */
export function indexSize(): { runs: number; bytes: number; wideRuns: number } {
  if (pending.length > 0) indexPending();
  return { runs: stored, bytes: highs.byteLength + lows.byteLength, wideRuns: wide.size };
}

// One way a server may write a character of a secret back. Applied per code point, so each
// character of a form is known to come from one character of the value.
type Encoder = (c: string) => string;

function unicodeEscaped(c: string, upper: boolean): string {
  return c.replace(/[^\x20-\x7e]|[<>&]/g, (u) => {
    const hex = u.charCodeAt(0).toString(16).padStart(4, "0");
    return `\\u${upper ? hex.toUpperCase() : hex}`;
  });
}

const jsonEscaped = (c: string) => JSON.stringify(c).slice(1, -1);

const ENCODERS: readonly Encoder[] = [
  (c) => c,
  jsonEscaped,
  encodeURIComponent,
  (c) => (c === " " ? "+" : encodeURIComponent(c)),
  encodeURI,
  (c) => unicodeEscaped(c, false),
  (c) => unicodeEscaped(c, true),
  (c) => jsonEscaped(unicodeEscaped(c, false)),
  (c) => jsonEscaped(unicodeEscaped(c, true)),
];

function indexPending(): void {
  const values = pending;
  pending = [];
  for (const value of values) indexForms(value);
}

function indexForms(value: string): void {
  // Unreserved URL characters read the same in every form: one form to index.
  if (/^[A-Za-z0-9._~-]+$/.test(value)) {
    indexRuns(value, undefined);
    return;
  }
  const chars = [...value];
  const seen = new Set<string>();
  for (const encode of ENCODERS) {
    let text = "";
    const from: number[] = [];
    try {
      chars.forEach((c, k) => {
        const piece = encode(c);
        text += piece;
        for (let j = 0; j < piece.length; j++) from.push(k);
      });
    } catch {
      // A lone surrogate cannot be percent-encoded: no server can echo it that way either.
      continue;
    }
    if (seen.has(text)) continue;
    seen.add(text);
    indexRuns(text, from);
  }
}

/**
 * Indexes every run of a form. `from` gives the value's character behind each character of the
 * form (absent for the raw form). A run that spells a single character (`%C3%A4`, `\u00e4`) or
 * repeats one character (`------`) is not specific to this secret and would mask ordinary text.
 */
function indexRuns(form: string, from: number[] | undefined): void {
  const n = MIN_RUN_LENGTH;
  for (let s = 0; s + n <= form.length; s++) {
    if (from && from[s] === from[s + n - 1]) continue;
    const run = form.slice(s, s + n);
    if (run === run[0].repeat(n)) continue;
    let high = 0;
    let low = 0;
    let narrow = true;
    for (let j = 0; j < n; j++) {
      const c = run.charCodeAt(j);
      if (c > 0xff) narrow = false;
      high = ((high << 8) | (low >>> 24)) & 0xffff;
      low = ((low << 8) | c) >>> 0;
    }
    if (narrow) put(high, low);
    else wide.add(run);
  }
}

/*
 * Values shorter than MIN_SECRET_LENGTH (after trimming), kept only to be recognised where a secret
 * field's value stands in plain text (`bindpass: abc`), with their prefixes for an echo cut short.
 */
const shortValues = new Set<string>();
const shortPrefixes = new Set<string>();

/**
 * Forgets every value a deployment registered (secrets, and the program's names): a process that
 * serves another deployment next (pulumi-svc/testing's provider host) masks nothing of the one
 * before. The package's own words and the secret fields' names stay: they are the package's.
 */
export function forgetRegistered(): void {
  registered.clear();
  uniform.clear();
  pending = [];
  highs = new Uint32Array(1024);
  lows = new Uint32Array(1024);
  stored = 0;
  wide.clear();
  shortValues.clear();
  shortPrefixes.clear();
  ownNames.clear();
}

/** Register a secret value so that redact() removes it from every message from now on. */
export function registerSecret(value: string): void {
  if (typeof value !== "string" || registered.has(value)) return;
  const trimmed = value.trim();
  if (trimmed === "") return;
  registered.add(value);
  if (trimmed.length >= MIN_SECRET_LENGTH) {
    pending.push(value);
    if (value === value[0]!.repeat(value.length)) uniform.add(value);
    return;
  }
  for (const v of new Set([value, trimmed])) {
    shortValues.add(v);
    for (let i = 1; i < v.length; i++) shortPrefixes.add(v.slice(0, i));
  }
}

// Wire names of secret fields, lower case; the pattern that finds them is rebuilt when one is added.
const secretFields = new Set<string>();
let fieldPattern: RegExp | undefined;

/**
 * Declare a field whose value is secret, by its name on the wire (`bindpass`, `secret_key`):
 * redact() then masks whatever value follows the name, whatever its length, in the shapes a server
 * echoes: JSON (`"bindpass": "..."`, also JSON inside a JSON string, and lists or objects as
 * values), forms and queries (`bindpass=...`), quoted values in plain text (`bindpass: '...'`),
 * and an unquoted value in plain text (`bindpass: ...`) when it is a registered secret: there a
 * field name followed by a colon is also how a message names a property (`token: must not be
 * empty`), which must stay readable.
 */
export function registerSecretField(wireName: string): void {
  if (typeof wireName !== "string" || !/^[A-Za-z0-9_.-]+$/.test(wireName)) throw new TypeError(`not a field name: ${JSON.stringify(wireName)}`);
  const name = wireName.toLowerCase();
  if (secretFields.has(name)) return;
  secretFields.add(name);
  fieldPattern = undefined;
}

function fieldsPattern(): RegExp {
  if (fieldPattern) return fieldPattern;
  const names = [...secretFields].sort((a, b) => b.length - a.length).map((n) => n.replace(/[.-]/g, "\\$&"));
  return (fieldPattern = new RegExp(`(?<![A-Za-z0-9_])(?:${names.join("|")})(?![A-Za-z0-9_])`, "gi"));
}

type Span = [number, number];

// The package's own words (setting keys, field names, what a setting is for), lower case.
const ownWords = new Set<string>();
const WORD = /[A-Za-z0-9_]/;

/**
 * Words of this package that messages name: a piece of a secret that is exactly such a word, or
 * lies inside one (`secrets` of a token `first-secrets-token-1` in `svc:secretsToken`), is the
 * package's word, not an echo, and stays readable. Words shorter than a run never match anyway.
 */
export function registerOwnWords(texts: Iterable<string>): void {
  for (const t of texts) for (const w of t.match(/[A-Za-z0-9_]+/g) ?? []) if (w.length >= MIN_RUN_LENGTH) ownWords.add(w.toLowerCase());
}

// Names the program gave its objects (a KMS provider `aws-east`, a mount `config`), as they are.
const ownNames = new Set<string>();
const NAME = /[A-Za-z0-9_.-]/;

/**
 * Names from the program's inputs (an object's name, its mount): a server message that names the
 * object (`no such provider aws-east`) keeps the name readable even where a secret happens to
 * start with it. An echo of the secret itself runs past the name and is still masked.
 */
export function registerOwnName(name: string): void {
  if (name.length >= MIN_RUN_LENGTH && name.length <= 255 && /^[A-Za-z0-9_.-]+$/.test(name)) ownNames.add(name);
}

/** The maximal run of `chars` around [start, end). */
function around(text: string, [start, end]: Span, chars: RegExp): string {
  let from = start;
  let to = end;
  while (from > 0 && chars.test(text[from - 1]!)) from--;
  while (to < text.length && chars.test(text[to]!)) to++;
  return text.slice(from, to);
}

/** Whether a run span is only a piece of one of the package's words or the program's names (never a whole secret). */
function ownWord(text: string, span: Span): boolean {
  const piece = text.slice(span[0], span[1]);
  if (registered.has(piece)) return false;
  if (ownWords.size > 0 && /^[A-Za-z0-9_]+$/.test(piece) && ownWords.has(around(text, span, WORD).toLowerCase())) return true;
  return ownNames.size > 0 && /^[A-Za-z0-9_.-]+$/.test(piece) && ownNames.has(around(text, span, NAME));
}

/**
 * The package's own text (a request line it built, a message it wrote naming inputs): it never cuts
 * a secret short, so only whole registered values are masked (as they are, or percent-encoded in a
 * path), and whatever follows "Bearer ". A run of a secret that happens to spell part of a path
 * (`config` in `registry/config/access`) is the package's word, not an echo. Text a server sent
 * goes through redact().
 */
export function redactOwn(text: string): string {
  if (pending.length > 0) indexPending();
  let out = String(text);
  // A whole secret holds runs the index knows: a text with none needs no look at each secret (the
  // usual case, one pass whatever their number). A value of one repeated character has no run.
  const runs: Span[] = [];
  if (stored > 0 || wide.size > 0) runSpans(out, runs);
  const candidates = runs.length > 0 ? registered : uniform;
  if (candidates.size > 0) {
    const spans: Span[] = [];
    for (const value of candidates) {
      if (value.trim().length < MIN_SECRET_LENGTH) continue;
      for (const form of new Set([value, safeEncode(value)])) {
        for (let at = out.indexOf(form); form !== "" && at >= 0; at = out.indexOf(form, at + 1)) spans.push([at, at + form.length]);
      }
    }
    if (spans.length > 0) out = masked(out, spans);
  }
  return out.replace(/(Bearer\s+)(?!\[REDACTED\])[^\s"',;]+/gi, `$1${MASK}`);
}

function safeEncode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return value; // a lone surrogate: no path can hold it encoded
  }
}

/** Replace every registered secret (or run of one), the value of every secret field, and whatever follows "Bearer ", with "[REDACTED]". */
export function redact(text: string): string {
  if (pending.length > 0) indexPending();
  let out = String(text);
  const spans: Span[] = [];
  if (stored > 0 || wide.size > 0) {
    const runs: Span[] = [];
    runSpans(out, runs);
    for (const span of runs) if (!ownWord(out, span)) spans.push(span);
  }
  if (secretFields.size > 0) fieldSpans(out, spans);
  if (spans.length > 0) out = masked(out, spans);
  // A bearer credential we were never told about is still a credential.
  return out.replace(/(Bearer\s+)(?!\[REDACTED\])[^\s"',;]+/gi, `$1${MASK}`);
}

/** Every window of the text that is a run of a secret; overlapping and adjacent ones as one span. */
function runSpans(text: string, spans: Span[]): void {
  const n = MIN_RUN_LENGTH;
  let high = 0;
  let low = 0;
  let lastWide = -1;
  let open: Span | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0xff) lastWide = i;
    high = ((high << 8) | (low >>> 24)) & 0xffff;
    low = ((low << 8) | (c & 0xff)) >>> 0;
    const start = i - n + 1;
    if (start < 0) continue;
    const hit = lastWide >= start ? wide.size > 0 && wide.has(text.slice(start, i + 1)) : has(high, low);
    if (!hit) continue;
    if (open && start <= open[1]) open[1] = i + 1;
    else spans.push((open = [start, i + 1]));
  }
}

function masked(text: string, spans: Span[]): string {
  spans.sort((x, y) => x[0] - y[0] || y[1] - x[1]);
  let result = "";
  let last = -1;
  for (const [start, end] of spans) {
    // Overlapping and adjacent spans are one mask.
    if (last >= 0 && start <= last) {
      last = Math.max(last, end);
      continue;
    }
    result += text.slice(Math.max(last, 0), start) + MASK;
    last = end;
  }
  return result + text.slice(last);
}

const isSpace = (c: string | undefined) => c === " " || c === "\t";

function backslashesBefore(text: string, at: number): number {
  let n = 0;
  while (at - 1 - n >= 0 && text[at - 1 - n] === "\\") n++;
  return n;
}

/**
 * Whether the quote at `at` closes a string opened by a quote after `level` backslashes: inside
 * JSON written into a JSON string the delimiters are \" and a quote of the value is \\\", so a
 * delimiter is preceded by level + k·2(level+1) backslashes.
 */
function closes(text: string, at: number, level: number): boolean {
  const n = backslashesBefore(text, at);
  return n >= level && (n - level) % (2 * (level + 1)) === 0;
}

/** The end of the string whose content starts at `from` (the index of its closing run), or the text's end. */
function stringEnd(text: string, from: number, quote: string, level: number): number {
  for (let i = from; i < text.length; i++) if (text[i] === quote && closes(text, i, level)) return i - level;
  return text.length;
}

/** The end (exclusive) of the list or object opening at `from`, strings at `level` skipped, or the text's end. */
function containerEnd(text: string, from: number, level: number): number {
  let depth = 0;
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === '"' && closes(text, i, level)) inString = !inString;
    else if (!inString && (c === "[" || c === "{")) depth++;
    else if (!inString && (c === "]" || c === "}") && --depth === 0) return i + 1;
  }
  return text.length;
}

/** The masked span of the value that follows a secret field's name at [start, end), if any. */
function fieldValue(text: string, start: number, end: number): Span | undefined {
  const quote = text[start - 1] === '"' || text[start - 1] === "'" ? text[start - 1] : undefined;
  let level = 0;
  let i = end;
  if (quote) {
    level = backslashesBefore(text, start - 1);
    if (text.slice(end, end + level) !== "\\".repeat(level) || text[end + level] !== quote) return undefined;
    i = end + level + 1;
  }
  while (isSpace(text[i])) i++;
  const separator = text[i];
  if (separator !== ":" && !(separator === "=" && !quote)) return undefined;
  const tight = i === end && separator === "=";
  i++;
  while (isSpace(text[i])) i++;
  // A quoted value at the name's level: JSON, or quoted in plain text.
  const valueQuote = text.slice(i, i + level) === "\\".repeat(level) ? text[i + level] : undefined;
  if (valueQuote === '"' || (valueQuote === "'" && level === 0)) {
    const from = i + level + 1;
    const to = stringEnd(text, from, valueQuote, level);
    return to > from ? [from, to] : undefined;
  }
  if (text[i] === "[" || text[i] === "{") return [i, containerEnd(text, i, level)];
  if (quote) return undefined; // a number, true, false or null
  if (tight) {
    // A form or query: the value runs to the next parameter.
    let to = i;
    while (to < text.length && !/[&\s"'\\<>]/.test(text[to])) to++;
    return to > i ? [i, to] : undefined;
  }
  return shortValueAt(text, i);
}

/** A registered short value standing at `at` (longer ones are masked wherever they are), or the cut-off start of one ending the text. */
function shortValueAt(text: string, at: number): Span | undefined {
  if (shortValues.size === 0) return undefined;
  for (let n = Math.min(MIN_SECRET_LENGTH - 1, text.length - at); n > 0; n--) {
    const after = text[at + n];
    if (shortValues.has(text.substr(at, n)) && (after === undefined || /[\s,;.)\]}"'&]/.test(after))) return [at, at + n];
  }
  const rest = text.slice(at).replace(/(\.\.\.|…)$/, "");
  return rest !== "" && shortPrefixes.has(rest) ? [at, at + rest.length] : undefined;
}

function fieldSpans(text: string, spans: Span[]): void {
  const pattern = fieldsPattern();
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    const span = fieldValue(text, m.index, m.index + m[0].length);
    if (span) spans.push(span);
  }
}
