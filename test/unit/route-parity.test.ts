// Route parity: the provider and the emulator are two independent readings of the seeds, and each
// writes its routes in its own dialect (`{name}` in the provider's tables, `:name` in the emulator's).
// Every route the provider can send must exist in the emulator, and every emulator route must be
// sent by the provider or be listed below with the reason it is not. Routes are data: each service
// area writes its routes once, in its own table (src/runs/routes.ts, src/secrets/<area>/routes.ts).
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import { describe, expect, it } from "vitest";
import { ENGINES, SYSTEM_PATHS } from "../../src/emulator/secrets";
import { OPEN_ROUTES as OPEN_RUN_ROUTES, ROUTES as RUN_ROUTES } from "../../src/emulator/runs";
import { root } from "../support/dist";

type Service = "runs" | "secrets";
interface Sent { service: Service; method: string; segments: string[]; route: string; file: string }
interface Served { service: Service; method: string; segments: string[]; where: string }

const ROUTE = /"((?:GET|POST|PUT|PATCH|DELETE|LIST) \/[^"\s]*)"/g;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith(".ts") ? [p] : [];
  });
}

const segmentsOf = (p: string) => p.split("/").filter(Boolean);

/** Every route literal in the provider's sources: src/runs for the run service, src/secrets for the secrets service. */
function sent(): Sent[] {
  const out: Sent[] = [];
  for (const service of ["runs", "secrets"] as const) {
    for (const file of sourceFiles(path.join(root, "src", service))) {
      for (const m of fs.readFileSync(file, "utf8").matchAll(ROUTE)) {
        const [method, p] = m[1]!.split(" ") as [string, string];
        out.push({ service, method, segments: segmentsOf(p), route: m[1]!, file: path.relative(root, file) });
      }
    }
  }
  return out;
}

/** Every route the emulator serves; an engine's routes under the `{mount}` it is mounted at. */
function served(): Served[] {
  const out: Served[] = [];
  for (const r of [...RUN_ROUTES, ...OPEN_RUN_ROUTES]) {
    out.push({ service: "runs", method: r.method, segments: segmentsOf(r.path), where: `runs ${r.method} ${r.path}` });
  }
  for (const engine of Object.values(ENGINES)) {
    for (const r of engine.routes) {
      out.push({ service: "secrets", method: r.method, segments: ["{mount}", ...segmentsOf(r.path)], where: `${engine.type} engine ${r.method} ${r.path}` });
    }
  }
  for (const [prefix, routes] of Object.entries(SYSTEM_PATHS)) {
    for (const r of routes) out.push({ service: "secrets", method: r.method, segments: [prefix, ...segmentsOf(r.path)], where: `${r.method} ${prefix}/${r.path}` });
  }
  return out;
}

/** The route table of a service area: src/runs/routes.ts or src/secrets/<area>/routes.ts. */
const ROUTE_TABLE = /^src\/(runs|secrets\/[^/]+)\/routes\.ts$/;
const ROUTE_TEXT = /^(GET|POST|PUT|PATCH|DELETE|LIST) \/\S*$/;

/**
 * Every string in the provider's sources, in any quoting, that is a route (a template's head too,
 * so a route built by concatenation counts), read from the syntax tree: comments and messages
 * quoting a route do not count.
 */
function routeLiterals(): { file: string; line: number; text: string }[] {
  const out: { file: string; line: number; text: string }[] = [];
  for (const service of ["runs", "secrets"] as const) {
    for (const file of sourceFiles(path.join(root, "src", service))) {
      const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        const text = ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) ? node.text
          : ts.isTemplateExpression(node) ? node.head.text : undefined;
        if (text !== undefined && ROUTE_TEXT.test(text)) {
          out.push({ file: path.relative(root, file).split(path.sep).join("/"), line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, text });
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
  }
  return out;
}

const isParam = (s: string) => s.startsWith(":") || /^\{\w+\}$/.test(s);

/** The secrets service takes PUT as POST, as the real-world equivalent does (the plugin catalog's seed route is a PUT). */
const methodOf = (r: Sent) => (r.service === "secrets" && r.method === "PUT" ? "POST" : r.method);

function matches(a: Sent, b: Served): boolean {
  if (a.service !== b.service || (b.method !== "*" && methodOf(a) !== b.method)) return false;
  if (a.segments.length !== b.segments.length) return false;
  return a.segments.every((s, i) => {
    const t = b.segments[i]!;
    return isParam(s) && isParam(t) ? true : s === t;
  });
}

/** Emulator routes the provider never sends, and why. */
const BUILTIN = "built-in objects have two-segment names (`builtin/<name>`): the provider references them by name and never reads or writes them";
const UNSENT: Record<string, string> = {
  "transform engine GET template/builtin/:name": BUILTIN,
  "transform engine POST template/builtin/:name": BUILTIN,
  "transform engine DELETE template/builtin/:name": BUILTIN,
  "transform engine GET alphabet/builtin/:name": BUILTIN,
  "transform engine POST alphabet/builtin/:name": BUILTIN,
  "transform engine DELETE alphabet/builtin/:name": BUILTIN,
  "transform engine GET stores/builtin/:name": BUILTIN,
  "transform engine POST stores/builtin/:name": BUILTIN,
  "transform engine DELETE stores/builtin/:name": BUILTIN,
  "directory engine GET roles": "the seed lists roles with GET or LIST; the provider uses LIST",
  "directory engine GET rotate-root": "the seed rotates the root with GET or POST; the provider uses POST",
  "GET sys/health": "answered for health probes and third-party clients, not the provider",
  "HEAD sys/health": "answered for health probes and third-party clients, not the provider",
  "GET auth/token/lookup-self": "answered for third-party clients that check their token first, not the provider",
  "runs HEAD /ping": "answered for health probes and third-party clients; the import pings with GET",
};

describe("route parity between the provider and the emulator", () => {
  const provider = sent();
  const emulator = served();

  it("finds the routes of both sides", () => {
    expect(provider.length).toBeGreaterThan(80);
    expect(emulator.length).toBeGreaterThan(80);
  });

  it("every route the provider can send is served by the emulator", () => {
    const missing = provider.filter((r) => !emulator.some((e) => matches(r, e))).map((r) => `${r.route} (${r.file})`);
    expect([...new Set(missing)], "routes no emulator file serves: write the object's model in the area's emulator folder (npm run docs registers its rows)").toEqual([]);
  });

  it("every emulator route is sent by the provider or listed with the reason it is not", () => {
    const unsent = emulator.filter((e) => !provider.some((r) => matches(r, e))).map((e) => e.where);
    expect(unsent.filter((w) => !(w in UNSENT))).toEqual([]);
    // A reason for a route that is sent after all (or no longer served) is stale.
    expect(Object.keys(UNSENT).filter((w) => !unsent.includes(w))).toEqual([]);
  });
});

describe("routes are data: one route table per service area", () => {
  const literals = routeLiterals();

  it("finds the route literals the parity checks compare", () => {
    expect(literals.length).toBeGreaterThan(80);
    const found = new Set(literals.map((l) => l.text));
    expect(sent().filter((r) => !found.has(r.route)).map((r) => r.route)).toEqual([]);
  });

  it("every route literal sits in its service area's routes.ts, and nowhere else", () => {
    expect(literals.filter((l) => !ROUTE_TABLE.test(l.file)).map((l) => `${l.file}:${l.line} ${l.text}`)).toEqual([]);
  });

  it("a route is written once in its table", () => {
    const seen = new Map<string, number>();
    for (const l of literals) seen.set(`${l.file} ${l.text}`, (seen.get(`${l.file} ${l.text}`) ?? 0) + 1);
    expect([...seen].filter(([, n]) => n > 1).map(([k]) => k)).toEqual([]);
  });
});
