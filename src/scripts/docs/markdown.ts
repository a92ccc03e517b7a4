/** Markdown from the declarations: TSDoc parts, table cells, and types as a program means them. */
import * as ts from "typescript";

export type Linker = (name: string) => string | undefined;

/** Doc parts as Markdown; `{@link X}` becomes a link where X has a page. */
export function md(parts: readonly ts.SymbolDisplayPart[] | undefined, link: Linker): string {
  let out = "";
  let target: string | undefined;
  let label: string | undefined;
  for (const p of parts ?? []) {
    if (p.kind === "link") {
      if (p.text.startsWith("{@link")) {
        target = undefined;
        label = undefined;
      } else {
        const name = (target ?? "").trim();
        const shown = label?.trim() || name;
        const href = link(name);
        out += href ? `[\`${shown}\`](${href})` : `\`${shown}\``;
      }
    } else if (p.kind === "linkName") target = p.text;
    else if (p.kind === "linkText") label = p.text;
    else out += p.text;
  }
  return out.trim();
}

/** Text for one table cell: one line, pipes escaped (GitHub reads `\|` inside code spans too). */
export function cell(text: string): string {
  return text.trim().replace(/\n\s*\n/g, "<br><br>").replace(/\s*\n\s*/g, " ").replace(/\|/g, "\\|");
}

export const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;

export function docOf(checker: ts.TypeChecker, s: ts.Symbol, link: Linker): string {
  return md(s.getDocumentationComment(checker), link);
}

export function tags(checker: ts.TypeChecker, s: ts.Symbol, name: string, link: Linker): string[] {
  return s.getJsDocTags(checker).filter((t) => t.name === name).map((t) => md(t.text, link));
}

/** An @example as a code block: fenced already, or fenced here. */
export function example(text: string): string {
  return text.trimStart().startsWith("```") ? text.trim() : `\`\`\`ts\n${text.trim()}\n\`\`\``;
}

export const FLAGS = ts.TypeFormatFlags.NoTruncation;
export const WRAPPERS = new Set(["Promise", "Output", "OutputInstance", "Input"]);

/**
 * A type as TypeScript prints it, with pulumi's Input/Output wrappers taken off at every level:
 * an argument's `Input<Input<string>[]>` reads `string[]`, as the value a program means.
 */
export function typeText(checker: ts.TypeChecker, type: ts.Type): string {
  if (type.aliasSymbol && WRAPPERS.has(type.aliasSymbol.name) && type.aliasTypeArguments?.[0]) return typeText(checker, type.aliasTypeArguments[0]);
  if (type.flags & ts.TypeFlags.Boolean) return "boolean";
  if (type.isUnion()) {
    const members = type.types.filter((t) => !WRAPPERS.has(t.getSymbol()?.getName() ?? "") && !(t.flags & ts.TypeFlags.Undefined));
    const hasTrue = members.some((t) => checker.typeToString(t) === "true");
    const hasFalse = members.some((t) => checker.typeToString(t) === "false");
    const texts: string[] = [];
    for (const t of members) {
      const s = checker.typeToString(t);
      if (hasTrue && hasFalse && (s === "true" || s === "false")) {
        if (!texts.includes("boolean")) texts.push("boolean");
      } else texts.push(typeText(checker, t));
    }
    if (texts.length === 1) return texts[0]!;
    // A union is written once, however many wrappers it was inside of.
    return [...new Set(texts)].join(" | ");
  }
  if (checker.isArrayType(type)) {
    const inner = typeText(checker, checker.getTypeArguments(type as ts.TypeReference)[0]!);
    return /[ |&]/.test(inner) && !/^\{.*\}$/.test(inner) ? `(${inner})[]` : `${inner}[]`;
  }
  const symbolName = type.getSymbol()?.getName();
  if (symbolName && WRAPPERS.has(symbolName)) {
    const inner = checker.getTypeArguments(type as ts.TypeReference)[0];
    if (inner) return typeText(checker, inner);
  }
  // An object written inline (a mapped Input type): its members, unwrapped in turn.
  if (type.flags & ts.TypeFlags.Object && (symbolName === "__type" || symbolName === "__object") && !type.aliasSymbol && type.getCallSignatures().length === 0) {
    const props = checker.getPropertiesOfType(type);
    const index = checker.getIndexInfosOfType(type);
    const parts = props.map((p) => `${p.name}${p.flags & ts.SymbolFlags.Optional ? "?" : ""}: ${typeText(checker, checker.getNonNullableType(checker.getTypeOfSymbol(p)))}`);
    for (const i of index) parts.push(`[key: ${checker.typeToString(i.keyType)}]: ${typeText(checker, i.type)}`);
    return `{ ${parts.join("; ")} }`;
  }
  return checker.typeToString(type, undefined, FLAGS);
}

/** Promise<T>, Output<T>, AsyncGenerator<T> and arrays of them → T, to list a result's fields. */
export function unwrap(checker: ts.TypeChecker, type: ts.Type): ts.Type {
  const name = type.getSymbol()?.getName() ?? type.aliasSymbol?.getName();
  if (name && [...WRAPPERS, "AsyncGenerator", "AsyncIterable", "AsyncIterableIterator"].includes(name)) {
    const inner = checker.getTypeArguments(type as ts.TypeReference)?.[0] ?? type.aliasTypeArguments?.[0];
    if (inner) return unwrap(checker, inner);
  }
  if (checker.isArrayType(type)) return unwrap(checker, checker.getTypeArguments(type as ts.TypeReference)[0]!);
  return type;
}

/** A doc's first sentence (up to a full stop followed by a space or the end), for one-line lists. */
export function firstSentence(text: string): string {
  const one = text.replace(/\s+/g, " ").trim();
  const m = /^(.+?[.!?])(\s|$)/.exec(one);
  return m ? m[1]! : one;
}
