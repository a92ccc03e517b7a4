// Suggestions for misspelt names: a check failure says which known property was probably meant.

/** The nearest known name to a misspelt one (edit distance at most a third of its length). */
export function nearest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestCost = Math.max(2, Math.floor(name.length / 3)) + 1;
  const lower = name.toLowerCase();
  for (const k of known) {
    const cost = distance(lower, k.toLowerCase());
    if (cost < bestCost) {
      best = k;
      bestCost = cost;
    }
  }
  return best;
}

function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 8) return Infinity;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}
