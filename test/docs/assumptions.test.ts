// docs/assumptions.md is one numbered list of the choices made where the API documents are silent.
// Every item says what it rests on in one trailing "Rests on:" line: a phrase of a seed (checked here
// against the seed file itself), a real-server behaviour, or our own choice.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "../support/dist";
import { requireReal, requiredButMissing } from "../support/real";

interface Item {
  number: number;
  line: number;
  lines: string[];
}

/** The numbered items of the page: each from its "N. " line to the next item or heading. */
function items(text: string): Item[] {
  const out: Item[] = [];
  let current: Item | undefined;
  text.split("\n").forEach((line, i) => {
    const start = /^(\d+)\.\s/.exec(line);
    if (start) {
      current = { number: Number(start[1]), line: i + 1, lines: [line] };
      out.push(current);
    } else if (/^#/.test(line)) {
      current = undefined;
    } else if (current && line.trim() !== "") {
      current.lines.push(line);
    }
  });
  return out;
}

const RESTS_ON = /^\s*Rests on:/;
const SEED = /^\s*Rests on: seed (\d{3}) "([^"]+)"\s*$/;
const OTHER = /^\s*Rests on: (real-server behaviour|our choice): \S.*$/;

const collapse = (s: string): string => s.replace(/\s+/g, " ").trim();

const page = fs.readFileSync(path.join(root, "docs/assumptions.md"), "utf8");
const list = items(page);

describe("docs/assumptions.md", () => {
  it("is one list numbered 1, 2, 3, … through all its headings", () => {
    expect(list.length).toBeGreaterThan(0);
    expect(list.map((item) => item.number)).toEqual(list.map((_, i) => i + 1));
  });

  it("every item ends with exactly one Rests on: line, a seed phrase, a real-server behaviour or our choice", () => {
    const bad: string[] = [];
    for (const item of list) {
      const rests = item.lines.filter((l) => RESTS_ON.test(l));
      const where = `item ${item.number} (line ${item.line})`;
      if (rests.length !== 1) bad.push(`${where}: ${rests.length} "Rests on:" lines`);
      else if (!RESTS_ON.test(item.lines[item.lines.length - 1]!)) bad.push(`${where}: "Rests on:" is not its last line`);
      else if (!SEED.test(rests[0]!) && !OTHER.test(rests[0]!)) bad.push(`${where}: cannot read ${rests[0]!.trim()}`);
    }
    expect(bad).toEqual([]);
  });

  it("every quoted seed phrase is 3 to 12 words", () => {
    const bad = list.flatMap((item) => item.lines.map((l) => SEED.exec(l)).filter((m) => m !== null)
      .map((m) => ({ item: item.number, words: collapse(m[2]!).split(" ").length }))
      .filter((p) => p.words < 3 || p.words > 12));
    expect(bad).toEqual([]);
  });

  const seedsDir = path.join(root, "../shared/seeds");
  const haveSeeds = fs.existsSync(seedsDir);
  if (!haveSeeds && !requireReal) console.warn(`skipping the seed phrase check of docs/assumptions.md: ${seedsDir} does not exist`);

  it.skipIf(!haveSeeds && !requireReal)("every quoted seed phrase occurs in the seed file it names", () => {
    if (!haveSeeds) throw requiredButMissing(`the seeds folder ${seedsDir} does not exist`);
    const files = fs.readdirSync(seedsDir);
    const seedText = new Map<string, string>();
    const bad: string[] = [];
    for (const item of list) {
      for (const line of item.lines) {
        const m = SEED.exec(line);
        if (!m) continue;
        const [, seed, phrase] = m as unknown as [string, string, string];
        const file = files.find((f) => f.startsWith(seed));
        if (!file) {
          bad.push(`item ${item.number}: no seed file starts with ${seed}`);
          continue;
        }
        if (!seedText.has(seed)) seedText.set(seed, collapse(fs.readFileSync(path.join(seedsDir, file), "utf8")));
        if (!seedText.get(seed)!.includes(collapse(phrase))) bad.push(`item ${item.number}: seed ${seed} (${file}) does not contain "${phrase}"`);
      }
    }
    expect(bad).toEqual([]);
  });
});
