import { describe, expect, test } from "vitest";
import { FF3_1, lengthProblem } from "../../src/emulator/secrets/transform/ff3";

// NIST ACVP FF3-1 (AES-128, radix 10) sample vectors: key, 56-bit tweak, plaintext, ciphertext.
const VECTORS: [string, string, string, string][] = [
  ["ad41ec5d2356deae53ae76f50b4ba6d2", "cf29da1e18d970", "6520935496", "4716569208"],
  ["3c0abb8c4d50528320ed6ef4f536371c", "2e0b7ee01c1370", "37411281822299620587806308530316674537844784195073078382", "45217408528208365340847148215470453887037524494034613315"],
  ["f0097594805cf9b83b865ac2e86aaa3b", "a864bfdb7ab3e4", "884423490276892452986545", "886740195115224033771281"],
  ["a4d59150ba523929f2536e22dcd9833a", "c618e4b9f102a9", "5121915885157704276490198331789119695462135673546462", "8700695822600163129327075842807189794897935821179979"],
  ["65aec32cd5005e9d4fe0337d750f8889", "22566b02ce2b29", "579835153593770625247573877144356016354", "139570038859733375828972899639612707646"],
  ["da0c3307fd184c1e47ff9b8acfd75305", "d9f1abd9c7ce64", "16554083965640402", "92429329291203011"],
  ["96040c3bd28cacf5bbc104e17b71c292", "75a8902a2c33ab", "673355560820242081637314985809466", "978822369712766543147569600748825"],
  ["47d6fd007e50024240b5d502db5b4a6a", "d3399bf93cc10c", "3136368918758657833514782148219054962724377646545", "8465961639246937993407777533030559401101453326524"],
  ["a84bb554854dcab9cbfd9e298001518c", "7a773172c3f0f1", "082360355025", "901934302943"],
  ["a00fcedf1ce6e35cf9097e98dc4d284d", "006985bc0e672c", "63987540055130890395", "73110711860320595989"],
];

const digits = (s: string) => [...s].map(Number);
const text = (d: number[]) => d.join("");

describe("FF3-1 (NIST SP 800-38G Rev. 1)", () => {
  test.each(VECTORS)("ACVP key %s tweak %s", (key, tweak, plain, cipher) => {
    const ff3 = new FF3_1(Buffer.from(key, "hex"), 10);
    expect(text(ff3.encrypt(digits(plain), Buffer.from(tweak, "hex")))).toBe(cipher);
    expect(text(ff3.decrypt(digits(cipher), Buffer.from(tweak, "hex")))).toBe(plain);
  });

  test("another tweak gives another ciphertext; round trip over radix 62 with a 256-bit key", () => {
    const ff3 = new FF3_1(Buffer.alloc(32, 7), 62);
    const x = [1, 20, 33, 61, 0, 5, 9, 44];
    const t1 = Buffer.from("00112233445566", "hex");
    const t2 = Buffer.from("00112233445567", "hex");
    expect(ff3.encrypt(x, t1)).not.toEqual(ff3.encrypt(x, t2));
    expect(ff3.decrypt(ff3.encrypt(x, t1), t1)).toEqual(x);
  });

  test("domain bounds: radix^length >= 1,000,000 and at most 2*floor(96/log2(radix))", () => {
    expect(lengthProblem(10, 5)).toContain("at least 6");
    expect(lengthProblem(10, 6)).toBeUndefined();
    expect(lengthProblem(10, 56)).toBeUndefined();
    expect(lengthProblem(10, 57)).toContain("at most 56");
    expect(lengthProblem(26, 4)).toContain("at least 5");
    expect(() => new FF3_1(Buffer.alloc(16), 10).encrypt([1, 2, 3], Buffer.alloc(7))).toThrow(/too short/);
    expect(() => new FF3_1(Buffer.alloc(16), 10).encrypt(digits("123456"), Buffer.alloc(8))).toThrow(/7 bytes/);
  });
});
