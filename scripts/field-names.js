#!/usr/bin/env node
// How often an object file writes each of its fields' names: the measure the redesigns are held to.
//
//   node scripts/field-names.js [--list]
//
// An object file is a provider file under src/runs or src/secrets that declares fields. Its fields
// are the keys of its field records (`name: field(…)`, `name: output(…)`, every key of a record
// named `…Fields` or `…FieldsOwn`, however its fields are built) and, for the read side,
// the properties of the interfaces it declares by hand (a function's result written member by
// member). Each name is counted in the file as a whole word in every spelling the wire uses
// (camelCase, snake_case, kebab-case): in the whole text, and in code alone (comments left out,
// strings kept: a hand-written wire name is code). Prints the median of each over every
// (file, field) pair; --list prints each pair's counts, most first; --files each file's medians.
"use strict";
const fs = require("fs");
const path = require("path");
const ts = require("typescript");

const root = path.resolve(__dirname, "..");
const snake = (k) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const kebab = (k) => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function files(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : e.name.endsWith(".ts") ? [p] : [];
  });
}

/** The field names a file declares: record keys built by field()/output(), and interface members. */
function declared(source) {
  const names = new Set();
  const visit = (node) => {
    if (ts.isPropertyAssignment(node) && ts.isCallExpression(node.initializer)) {
      const callee = node.initializer.expression;
      if (ts.isIdentifier(callee) && (callee.text === "field" || callee.text === "output") && ts.isIdentifier(node.name)) names.add(node.name.text);
    }
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && /Fields(Own)?$/.test(node.name.text) && node.initializer && ts.isObjectLiteralExpression(node.initializer)) {
      for (const p of node.initializer.properties) if (ts.isPropertyAssignment(p) && ts.isIdentifier(p.name)) names.add(p.name.text);
    }
    if (ts.isInterfaceDeclaration(node)) {
      for (const m of node.members) if (ts.isPropertySignature(m) && ts.isIdentifier(m.name)) names.add(m.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

/** The text with its comments blanked out. */
function codeOnly(text) {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  let out = "";
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    const t = scanner.getTokenText();
    out += kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia ? " " : t;
  }
  return out;
}

function count(text, name) {
  const spellings = [...new Set([name, snake(name), kebab(name)])];
  let n = 0;
  for (const s of spellings) {
    const re = new RegExp(`(?<![A-Za-z0-9_$-])${s.replace(/[-$]/g, "\\$&")}(?![A-Za-z0-9_$-])`, "g");
    n += (text.match(re) ?? []).length;
  }
  return n;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const rows = [];
for (const file of [...files(path.join(root, "src/runs")), ...files(path.join(root, "src/secrets"))].sort()) {
  const text = fs.readFileSync(file, "utf8");
  const names = declared(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
  if (names.size === 0) continue;
  const code = codeOnly(text);
  for (const name of names) rows.push({ file: path.relative(root, file), name, all: count(text, name), code: count(code, name) });
}

if (process.argv.includes("--list")) {
  for (const r of [...rows].sort((a, b) => b.all - a.all)) console.log(`${String(r.all).padStart(3)} ${String(r.code).padStart(3)}  ${r.file} ${r.name}`);
}
if (process.argv.includes("--files")) {
  for (const f of [...new Set(rows.map((r) => r.file))]) {
    const mine = rows.filter((r) => r.file === f);
    console.log(`${String(median(mine.map((r) => r.all))).padStart(5)} ${String(median(mine.map((r) => r.code))).padStart(5)} ${String(mine.length).padStart(3)}  ${f}`);
  }
}
const perFile = new Set(rows.map((r) => r.file)).size;
console.log(`${rows.length} fields in ${perFile} object files: a field's name is written a median of ${median(rows.map((r) => r.all))} times in its file, ${median(rows.map((r) => r.code))} in code alone`);
