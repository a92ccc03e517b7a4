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

const ALPHABETS: Record<number, string> = {
  10: "0123456789",
  26: "abcdefghijklmnopqrstuvwxyz",
  64: "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/",
};

/**
 * More of NIST's ACVP FF3-1 vectors, copied from usnistgov/ACVP-Server,
 * gen-val/json-files/ACVP-AES-FF3-1-1.0/internalProjection.json (commit 8e6f5ee70a96fc634b4751386d3733e29f4bf5c6):
 * AES-128, -192 and -256 keys over radix 10, 26 and 64 (the alphabets above). [tcId, key bits, radix, key, tweak, pt, ct].
 */
const MORE: [number, number, number, string, string, string, string][] = [
  [26, 128, 26, "F078DB4C3105463E559623AB7C2EA29F", "1A3FD500D121E9", "aquxxnfnhq", "lkjcjcnohf"],
  [27, 128, 26, "C7630C6EE431283365A70B06D3FA6CD8", "9FC475DB5A5824", "bnlilrtlwmleozfxpddesinwvuqostxzkovolgbe", "bdzzkydglpqydxwndiyakofjrfihynehnycbmxuc"],
  [51, 128, 64, "F25F9847BFCE672767C28F75E0C22663", "02E98B70FCADF3", "oUpPhk2jm9", "khz4xTwSnT"],
  [53, 128, 64, "1BA6AED9A9C4CDDFFCEFBEBDEA065CE0", "059519EFDAED0D", "1pdgPjUaCT", "2sSRb7o+Mm"],
  [76, 192, 10, "22BD6067AD88AAAC544DC79CCAC30960CEAA57C7D0E7DBA1", "BD0A725A4EDBBE", "8698753752", "9584404002"],
  [77, 192, 10, "BBD993513F2D702C1908A5A5E3D30713CF1C285192A42999", "49B1811181C487",
    "92236061427629838278974317694598492483521930395322104702", "94037268165665356681944391643379743282209038945532418719"],
  [87, 192, 10, "E1366CA9BE614E0BA68D0BE9500654F41E3B11AB3D90DE05", "7C02D7B7DE234C", "69069069524656", "95812286213108"],
  [101, 192, 26, "ABF2609099D17A8D9CE7340B9D37718FEB116FBA0F995062", "965E3665A67363", "xnpkaymwxj", "odzyjsjldd"],
  [102, 192, 26, "538065F6E7314413D1B98054A2778D7B1C89DD87B3673C2F", "ACA134D06373C3",
    "pjbwbfflepdoltpqggkclsjpaykbopohmjytvvim", "cxaaxiamzadlxcaosxduqtmgnxpldnjmtlhuutma"],
  [130, 192, 64, "4AC1E894B380379C185449166251C5F6A7EA3136C8A55418", "741A305870DC31", "kb4TwpmojjAt8SFF5HG", "LQ/8OhJ1inoLlR9DT+q"],
  [143, 192, 64, "AE6B1E1265E73F7817CC385B80F06759A88985A5D2E2182C", "AE880E51E8BA5D", "R3X8018qwz", "t3a6LoEB0r"],
  [151, 256, 10, "4567672BCE43B94922338FA16B421FCF81AAE0F202DA5BCD4C8EFD869097DC17", "92430092126DAA", "3588314239", "6999297766"],
  [152, 256, 10, "2A9A6C4E879A5B5FA96861C8388C2ACCB89B5597144444AD96C8F1BA4709D30E", "676A0C1D745CAB",
    "50156505507058999500133595691014717524220194828240635191", "44710351687030326610831310894502604883198716263639341517"],
  [161, 256, 10, "77DDA131DD2A3AB970EAC8C90A01E0E0E3E92EF5674D78809F903CE78A58173F", "5408B1B777AADE", "01532613805301886892832449", "80354803035377547468300239"],
  [170, 256, 10, "B1269B092F05FECFA8036738151EDB589B5DA045CEE15A5D8205D0DAE2F08140", "AA60B9F1511FCF",
    "927620161221903608902916983948120928574839781", "083018549187177333166353379901602152982038207"],
  [176, 256, 26, "98EF72B4CB9585F6B55A3E3083BDA54AE161E822EB79EE1E9F6012BF1C2AA385", "7D9E02EE1BA963", "cpgwnqztxg", "vdnyuqtuta"],
  [177, 256, 26, "B97E6C8186994CD64BDF0C25C0E604BA6EF2EB879ED7A46F1EB3338D3D736C0C", "1F09517BDB6E5F",
    "zixxzizwdrrhvbifuplrdwfrptpgfpouykavxjsf", "bwisehvdebxalonsaoykdvuxtouzoliqkagzznpm"],
  [181, 256, 26, "AB0DFDDC57913099395832A261198FAB558DD80953D269E87D73018A70B6B9DB", "32565DCD2EDCB6", "daovlqxemyxlao", "sjxaputnmvlesl"],
  [201, 256, 64, "9618F89241D27101914C980A373C08570832C924D470C65A272BDFEF41AD63A3", "5312C87A81B08E", "ctRF79h/HK", "7Rta7Ppqi8"],
  [202, 256, 64, "9407408FD87C0AD608344A9010610E2D422FB305CC4F4FA8B73B5C7F6050B5CA", "5A721F469ED493",
    "Fym7pxazebhQK7atlVi/LRGRex2h", "iAcK0GAFbi1wbqbLmvgn8gagv2Jo"],
  [203, 256, 64, "4AD59C7885D587D553709EE5CECF2BB45DC5B921FB9B901C919E6A34A3BE6B61", "24C38BEF41315E", "u9kR9RiJJGxxNkLDGenN", "oxBKawCoPvtRYWro2Uk9"],
];

const indices = (alphabet: string, s: string) => [...s].map((c) => alphabet.indexOf(c));
const chars = (alphabet: string, d: number[]) => d.map((i) => alphabet[i]).join("");

describe("FF3-1 (NIST SP 800-38G Rev. 1)", () => {
  test.each(VECTORS)("ACVP key %s tweak %s", (key, tweak, plain, cipher) => {
    const ff3 = new FF3_1(Buffer.from(key, "hex"), 10);
    expect(text(ff3.encrypt(digits(plain), Buffer.from(tweak, "hex")))).toBe(cipher);
    expect(text(ff3.decrypt(digits(cipher), Buffer.from(tweak, "hex")))).toBe(plain);
  });

  test.each(MORE)("ACVP tcId %i: AES-%i, radix %i", (_tc, bits, radix, key, tweak, plain, cipher) => {
    const alphabet = ALPHABETS[radix]!;
    expect(key.length * 4).toBe(bits);
    const ff3 = new FF3_1(Buffer.from(key, "hex"), radix);
    expect(chars(alphabet, ff3.encrypt(indices(alphabet, plain), Buffer.from(tweak, "hex")))).toBe(cipher);
    expect(chars(alphabet, ff3.decrypt(indices(alphabet, cipher), Buffer.from(tweak, "hex")))).toBe(plain);
  });

  test("the vectors cover every AES key size and radix 10, 26 and 64", () => {
    const covered = new Set([...VECTORS.map(([k]) => `${k.length * 4}/10`), ...MORE.map(([, bits, radix]) => `${bits}/${radix}`)]);
    expect([...covered].sort()).toEqual(["128/10", "128/26", "128/64", "192/10", "192/26", "192/64", "256/10", "256/26", "256/64"]);
  });

  test("another tweak gives another ciphertext; round trip over radix 62 with a 256-bit key", () => {
    const ff3 = new FF3_1(Buffer.alloc(32, 7), 62);
    const x = [1, 20, 33, 61, 0, 5, 9, 44];
    const t1 = Buffer.from("00112233445566", "hex");
    const t2 = Buffer.from("00112233445567", "hex");
    expect(ff3.encrypt(x, t1)).not.toEqual(ff3.encrypt(x, t2));
    expect(ff3.decrypt(ff3.encrypt(x, t1), t1)).toEqual(x);
  });

  // No published FF3-1 vectors use radix 36 or 62 (ACVP has 10, 26 and 64): for those, and for the
  // emulator's own case (a random 256-bit key per transformation), properties instead of vectors.
  test.each([10, 26, 36, 62, 64])("AES-256, radix %i: decrypt inverts encrypt, the format is kept, distinct inputs stay distinct", (radix) => {
    let seed = radix * 7919;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const key = Buffer.from(Array.from({ length: 32 }, () => next() % 256));
    const ff3 = new FF3_1(key, radix);
    let min = 2;
    while (lengthProblem(radix, min)) min++;
    const max = 2 * Math.floor(96 / Math.log2(radix));
    for (const length of [min, min + 1, Math.floor((min + max) / 2), max]) {
      const seen = new Set<string>();
      const outputs = new Set<string>();
      for (let n = 0; n < 25; n++) {
        const x = Array.from({ length }, () => next() % radix);
        const tweak = Buffer.from(Array.from({ length: 7 }, () => next() % 256));
        const y = ff3.encrypt(x, tweak);
        expect(y).toHaveLength(length);
        expect(y.every((d) => Number.isInteger(d) && d >= 0 && d < radix)).toBe(true);
        expect(ff3.decrypt(y, tweak)).toEqual(x);
        if (!seen.has(x.join(","))) {
          seen.add(x.join(","));
          // One key and tweak: a permutation of the domain.
          const fixed = Buffer.from("00000000000000", "hex");
          outputs.add(ff3.encrypt(x, fixed).join(","));
        }
      }
      expect(outputs.size).toBe(seen.size);
    }
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
