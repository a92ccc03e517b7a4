import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { svcToken, useStateFile } from "./helpers";
import { call } from "../support/http";

const state = useStateFile("emu-transform-state-");

describe("transform engine with a state file", () => {
  test("tokens, FPE keys and key versions survive a restart; the file holds no plaintext or token", async () => {
    const first = await state.start();
    const send = (emu: typeof first, path: string, body: unknown = {}) =>
      call("POST", `${emu.secretsUrl}/transform/${path}`, { headers: svcToken(emu.tokens.secretsRoot), body });
    await send(first, "transformations/tokenization/tok", { allowed_roles: ["r"] });
    await send(first, "transformations/fpe/card", { template: "builtin/creditcardnumber", tweak_source: "internal", allowed_roles: ["r"] });
    await send(first, "role/r", { transformations: ["tok", "card"] });
    await send(first, "role/constructor", { transformations: ["tok"] });
    const token = (await send(first, "encode/r", { value: "plaintext-4711", transformation: "tok", metadata: "m=1" })).json.data.encoded_value as string;
    const card = (await send(first, "encode/r", { value: "4111111111111111", transformation: "card" })).json.data.encoded_value as string;
    await send(first, "tokenization/keys/tok/rotate");
    await first.close();

    const text = readFileSync(state.path, "utf8");
    for (const secret of ["plaintext-4711", token, "4111111111111111"]) expect(text).not.toContain(secret);

    const second = await state.start();
    expect((await send(second, "decode/r", { value: token, transformation: "tok" })).json.data.decoded_value).toBe("plaintext-4711");
    expect((await send(second, "decode/r", { value: card, transformation: "card" })).json.data.decoded_value).toBe("4111111111111111");
    expect((await send(second, "metadata/r", { value: token, transformation: "tok" })).json.data.metadata).toBe("m=1");
    const keys = await call("GET", `${second.secretsUrl}/transform/tokenization/keys/tok`, { headers: svcToken(second.tokens.secretsRoot) });
    expect(keys.json.data.latest_version).toBe(2);
    const role = await call("GET", `${second.secretsUrl}/transform/role/constructor`, { headers: svcToken(second.tokens.secretsRoot) });
    expect(role.json.data.transformations).toEqual(["tok"]);
    expect((await call("GET", `${second.secretsUrl}/transform/role/toString`, { headers: svcToken(second.tokens.secretsRoot) })).status).toBe(404);
  });
});
