// Issue 17, item 9: redaction of what is left of a secret when a server cuts its echo short, and of
// the value of a secret field whatever its length.
import { describe, expect, it } from "vitest";
import { KIND_NAMES, kindDefinition } from "../../src/kinds";
// The transform functions declare the value fields (value, values) of encode, decode and restore.
import "../../src/secrets/transform";
import { MIN_RUN_LENGTH, indexSize, redact, registerSecret, registerSecretField } from "../../src/http/redact";
import { InvalidInputError, errorForStatus, extractMessages } from "../../src/http";

const MASK = "[REDACTED]";

describe("runs of a registered secret", () => {
  const bindpass = "Zq7uW-p4Lm9xK2vR8tYc3nB6hJ"; // 26 characters
  registerSecret(bindpass);

  const cuts: [string, string][] = [
    ["first 6", bindpass.slice(0, 6)],
    ["middle 6", bindpass.slice(10, 16)],
    ["last 6", bindpass.slice(-6)],
    ["all but 3 (the end cut)", bindpass.slice(0, -3)],
    ["all but 3 (the start cut)", bindpass.slice(3)],
  ];
  it.each(cuts)("%s characters echoed in a server message are masked", (_label, piece) => {
    for (const text of [`bind failed for ${piece} at ldap://dc1`, `{"error":"bad credentials ${piece}`, `${piece}`]) {
      const out = redact(text);
      expect(out, text).toContain(MASK);
      expect(out).not.toContain(piece);
    }
  });

  it("a piece cut at both ends, inside other text, leaves the text around it", () => {
    expect(redact(`x ${bindpass.slice(0, 23)}…`)).toBe(`x ${MASK}…`);
    expect(redact(`(${bindpass.slice(5, 20)})`)).toBe(`(${MASK})`);
  });

  it(`a piece shorter than ${MIN_RUN_LENGTH} characters identifies nothing and stays`, () => {
    const piece = bindpass.slice(0, MIN_RUN_LENGTH - 1);
    expect(redact(`code ${piece} here`)).toBe(`code ${piece} here`);
  });

  it("overlapping and adjacent runs are one mask", () => {
    const other = "Hb4Xv9QmTr2LpW7s";
    registerSecret(other);
    expect(redact(`${bindpass}${other}`)).toBe(MASK);
    expect(redact(`${bindpass.slice(0, 12)}${other.slice(4)} end`)).toBe(`${MASK} end`);
  });

  it("JSON-escaped, \\u-escaped and percent-encoded echoes, whole or cut, are masked", () => {
    const secret = "pä\"ss<wörd>&geheim-1234";
    registerSecret(secret);
    const json = JSON.stringify(secret).slice(1, -1);
    const unicode = secret.replace(/[^\x20-\x7e]|[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
    const url = encodeURIComponent(secret);
    for (const form of [json, unicode, url, JSON.stringify(unicode).slice(1, -1)]) {
      for (const piece of [form, form.slice(0, -4), form.slice(4), form.slice(3, 12)]) {
        const out = redact(`echo: ${piece} done`);
        expect(out, piece).toBe(`echo: ${MASK} done`);
      }
    }
  });

  it("a single escaped character of a secret is not a run: ordinary escaped text stays", () => {
    registerSecret("Grüße-aus-Köln-7731");
    expect(redact('{"city":"M\\u00fcnchen"}')).toBe('{"city":"M\\u00fcnchen"}');
    expect(redact("/users/%C3%BC")).toBe("/users/%C3%BC");
  });

  it("secrets in another script are matched by runs too", () => {
    const secret = "пароль-секрет-42";
    registerSecret(secret);
    expect(redact(`bad: ${secret.slice(2, 12)}.`)).toBe(`bad: ${MASK}.`);
  });

  it("ordinary messages without secrets are untouched", () => {
    for (const text of [
      "POST /directory/config: 400 Bad Request: url: must be an ldap or ldaps URL",
      "GET /transform/role/payments: 404 Not Found",
      "the secrets service token is missing: set SVC_SECRETS_TOKEN",
      "------ ====== ...... 000000",
      '{"errors":["permission denied"]}',
    ]) expect(redact(text)).toBe(text);
  });

});

describe("secret fields: the value after the field's name, whatever its length", () => {
  registerSecretField("bindpass");
  const seven = "k3Y!x9q"; // shorter than the minimum for matching anywhere
  registerSecret(seven);

  it("a 7-character bindpass echoed in JSON, with spaces, escaped quotes and nested in a string", () => {
    expect(redact(`{"binddn":"cn=admin","bindpass":"${seven}"}`)).toBe(`{"binddn":"cn=admin","bindpass":"${MASK}"}`);
    expect(redact(`{ "bindpass" :  "${seven}" , "x": 1 }`)).toBe(`{ "bindpass" :  "${MASK}" , "x": 1 }`);
    expect(redact('{"bindpass":"a\\"b\\\\"}')).toBe(`{"bindpass":"${MASK}"}`);
    const nested = JSON.stringify({ body: JSON.stringify({ bindpass: 'q"z', url: "ldap://h" }) });
    expect(redact(nested)).toBe(JSON.stringify({ body: JSON.stringify({ bindpass: MASK, url: "ldap://h" }) }));
  });

  it("a 7-character bindpass echoed in a form body or query", () => {
    expect(redact(`binddn=cn%3Dadmin&bindpass=${encodeURIComponent(seven)}&url=ldap`)).toBe(`binddn=cn%3Dadmin&bindpass=${MASK}&url=ldap`);
    expect(redact(`POST /directory/config?bindpass=ab`)).toBe(`POST /directory/config?bindpass=${MASK}`);
  });

  it("a 1-character value, in JSON, a form and plain text", () => {
    registerSecret("x");
    expect(redact('{"bindpass":"x"}')).toBe(`{"bindpass":"${MASK}"}`);
    expect(redact("bindpass=x")).toBe(`bindpass=${MASK}`);
    expect(redact("cannot bind with bindpass: x")).toBe(`cannot bind with bindpass: ${MASK}`);
    expect(redact("map[bindpass:x binddn:cn=admin]")).toBe(`map[bindpass:${MASK} binddn:cn=admin]`);
  });

  it("plain text: a registered value, quoted or not, and one cut off at the end", () => {
    expect(redact(`bind failed: bindpass: ${seven} rejected`)).toBe(`bind failed: bindpass: ${MASK} rejected`);
    expect(redact(`bindpass: '${seven}'`)).toBe(`bindpass: '${MASK}'`);
    expect(redact(`Bindpass = "${seven}"`)).toBe(`Bindpass = "${MASK}"`);
    expect(redact(`bad bindpass: ${seven.slice(0, 4)}`)).toBe(`bad bindpass: ${MASK}`);
  });

  it("a field naming a property in a message is not a value: the reason stays readable", () => {
    for (const text of [
      "bindpass: must not be empty",
      "invalid input: token: must be a string; bindpass: is required with binddn",
      "value: is required unless batchInput is given",
      'bindpass: got a number, expected "string"',
    ]) expect(redact(text)).toBe(text);
  });

  it("lists and objects as values of a secret field are masked whole", async () => {
    for (const kind of KIND_NAMES) await kindDefinition(kind);
    expect(redact('{"env":["A=1","B=two"],"command":"p"}')).toBe(`{"env":${MASK},"command":"p"}`);
    expect(redact('{"credentials":{"secret_key":"s","region":"eu"},"provider":"awskms"}')).toBe(`{"credentials":${MASK},"provider":"awskms"}`);
    expect(redact('{"values":["a","b"')).toBe(`{"values":${MASK}`);
  });

  it("other fields and names that only contain a secret field's name are left alone", () => {
    for (const text of ['{"bindpassword_hint":"x"}', '{"old_bindpass_set":true}', "tokenType=client", '{"token_type":"client"}', '{"token":null}'])
      expect(redact(text)).toBe(text);
  });

  it("every kind's secret fields are registered by its declarations (token, password, secret_key, ...)", async () => {
    for (const kind of KIND_NAMES) await kindDefinition(kind);
    for (const field of ["token", "password", "secret_key", "integration_key", "client_key", "value", "bindpass"])
      expect(redact(`{"${field}":"v"}`), field).toBe(`{"${field}":"${MASK}"}`);
  });

  it("reaches error messages: a server's 400 echoing a short bindpass in its body", () => {
    const body = { errors: [`invalid request {"bindpass":"${seven}","url":"ldap://h"}`] };
    const e = errorForStatus(400, { service: "secrets", method: "POST", path: "/directory/config", messages: extractMessages(body) });
    expect(e.message).not.toContain(seven);
    expect(e.message).toContain(`"bindpass":"${MASK}"`);
    const raw = extractMessages(`bindpass=${seven}&binddn=cn`);
    expect(raw).toEqual([`bindpass=${MASK}&binddn=cn`]);
  });

  it("local validation messages keep their property names and reasons", () => {
    const e = new InvalidInputError([{ path: "bindpass", message: "must not be empty" }, { path: "token", message: "must be a string" }]);
    expect(e.message).toBe("invalid input: bindpass: must not be empty; token: must be a string");
  });
});

// Last: thousands of random secrets make any later message a (small) chance of a coincidental run.
describe("memory", () => {
  it("the index is compact: a few MB for 10,000 secrets of 40 characters", () => {
    const before = indexSize();
    for (let i = 0; i < 10_000; i++) registerSecret(`tok-${i.toString(36).padStart(4, "0")}-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`.slice(0, 40));
    const after = indexSize();
    expect(after.runs - before.runs).toBeGreaterThan(200_000);
    expect(after.bytes).toBeLessThanOrEqual(8 * 1024 * 1024);
  });
});
