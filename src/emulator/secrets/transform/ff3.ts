/**
 * FF3-1 format-preserving encryption (NIST SP 800-38G Rev. 1, algorithms 9 and 10), written for this
 * emulator on node:crypto's AES. Numerals are indices into an alphabet; the arithmetic uses BigInt.
 * Proven against NIST's ACVP FF3-1 vectors (AES-128/192/256, radix 10, 26 and 64) in test/unit/ff3.test.ts.
 */
import { createCipheriv } from "node:crypto";

export const TWEAK_BYTES = 7;
const ROUNDS = 8;

/** Why FF3-1 cannot take `length` numerals of `radix`, or undefined when it can. */
export function lengthProblem(radix: number, length: number): string | undefined {
  if (radix < 2 || radix > 65536) return `the alphabet must have between 2 and 65536 characters, not ${radix}`;
  // minlen: radix^minlen >= 1,000,000; maxlen: 2 * floor(log_radix(2^96)).
  const maxLength = 2 * Math.floor(96 / Math.log2(radix));
  if (length < 2 || BigInt(radix) ** BigInt(length) < 1_000_000n) {
    let min = 2;
    while (BigInt(radix) ** BigInt(min) < 1_000_000n) min++;
    return `a value of ${length} characters from an alphabet of ${radix} is too short for FF3-1: it needs at least ${min} characters (alphabet size^length >= 1,000,000)`;
  }
  if (length > maxLength) return `a value of ${length} characters from an alphabet of ${radix} is too long for FF3-1: at most ${maxLength} characters`;
  return undefined;
}

function num(digits: number[], radix: bigint): bigint {
  let x = 0n;
  for (const d of digits) x = x * radix + BigInt(d);
  return x;
}

function str(x: bigint, radix: bigint, m: number): number[] {
  const out = new Array<number>(m);
  for (let i = m - 1; i >= 0; i--) {
    out[i] = Number(x % radix);
    x /= radix;
  }
  return out;
}

const rev = <T>(a: T[]): T[] => [...a].reverse();

export class FF3_1 {
  private readonly key: Buffer;
  private readonly radix: bigint;

  constructor(key: Buffer, readonly radixSize: number) {
    if (![16, 24, 32].includes(key.length)) throw new Error("FF3-1 needs an AES key of 16, 24 or 32 bytes");
    // The cipher runs with the byte-reversed key (REVB(K)).
    this.key = Buffer.from(key).reverse();
    this.radix = BigInt(radixSize);
  }

  encrypt(numerals: number[], tweak: Buffer): number[] {
    return this.run(numerals, tweak, true);
  }

  decrypt(numerals: number[], tweak: Buffer): number[] {
    return this.run(numerals, tweak, false);
  }

  private run(x: number[], tweak: Buffer, forward: boolean): number[] {
    const problem = lengthProblem(this.radixSize, x.length);
    if (problem) throw new Error(problem);
    if (tweak.length !== TWEAK_BYTES) throw new Error(`the FF3-1 tweak must be ${TWEAK_BYTES} bytes`);
    const n = x.length;
    const u = Math.ceil(n / 2);
    const v = n - u;
    let a = x.slice(0, u);
    let b = x.slice(u);
    // T_L = T[0..27] || 0^4, T_R = T[32..55] || T[28..31] || 0^4.
    const tl = Buffer.from([tweak[0], tweak[1], tweak[2], tweak[3] & 0xf0]);
    const tr = Buffer.from([tweak[4], tweak[5], tweak[6], (tweak[3] & 0x0f) << 4]);
    const cipher = createCipheriv(`aes-${this.key.length * 8}-ecb`, this.key, null).setAutoPadding(false);
    const round = (i: number, other: number[]): bigint => {
      const w = i % 2 === 0 ? tr : tl;
      const p = Buffer.alloc(16);
      w.copy(p, 0);
      p[3] ^= i;
      const n12 = num(rev(other), this.radix);
      p.write(n12.toString(16).padStart(24, "0"), 4, "hex");
      const s = Buffer.from(cipher.update(Buffer.from(p).reverse())).reverse();
      return BigInt(`0x${s.toString("hex")}`);
    };
    if (forward) {
      for (let i = 0; i < ROUNDS; i++) {
        const m = i % 2 === 0 ? u : v;
        const mod = this.radix ** BigInt(m);
        const c = (num(rev(a), this.radix) + round(i, b)) % mod;
        a = b;
        b = rev(str(c, this.radix, m));
      }
    } else {
      for (let i = ROUNDS - 1; i >= 0; i--) {
        const m = i % 2 === 0 ? u : v;
        const mod = this.radix ** BigInt(m);
        const c = (((num(rev(b), this.radix) - round(i, a)) % mod) + mod) % mod;
        b = a;
        a = rev(str(c, this.radix, m));
      }
    }
    cipher.final();
    return [...a, ...b];
  }
}
