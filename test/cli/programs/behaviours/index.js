// One program for the engine-behaviour tests of test/cli/behaviours.test.ts; config picks the
// scenario and its step. Plain JavaScript, so it runs as is (pulumi-svc resolves to dist/).
"use strict";
const pulumi = require("@pulumi/pulumi");
const svc = require("pulumi-svc");

const cfg = new pulumi.Config("behaviours");
const scenario = cfg.require("scenario");
const step = cfg.getNumber("step") ?? 1;
const alphabet = (name, chars, opts) => new svc.secrets.transform.Alphabet(name, { name, alphabet: chars }, opts);

switch (scenario) {
  case "aliases":
    // Step 2 renames the resource; the alias says it is the same object.
    if (step === 1) alphabet("alias-a", "0123");
    else new svc.secrets.transform.Alphabet("alias-b", { name: "alias-a", alphabet: "0123" }, { aliases: [{ name: "alias-a" }] });
    break;
  case "protect": {
    // Step 2 drops the protected resource from the program, updates one and adds one. The protected
    // resource depends on "held"; the template depends on its alphabet, so a destroy deletes it in
    // one wave and the alphabet in the next.
    const held = alphabet("held", "0123");
    if (step === 1) alphabet("guarded", "0123", { protect: true, dependsOn: [held] });
    alphabet("unguarded", step === 1 ? "0123" : "012345");
    if (step === 2) alphabet("added", "0123");
    const base = alphabet("base", "0123456789");
    new svc.secrets.transform.Template("base-tpl", { name: "base-tpl", pattern: "(\\d{3})", alphabet: base.name });
    break;
  }
  case "retain":
    if (step === 1) alphabet("kept", "0123", { retainOnDelete: true });
    break;
  case "ignore":
    alphabet("ignored", step === 1 ? "0123" : "01234567", { ignoreChanges: ["alphabet"] });
    break;
  case "target":
    alphabet("target-a", step === 1 ? "0123" : "012345");
    alphabet("target-b", step === 1 ? "0123" : "012345");
    break;
  case "import":
    alphabet("imported", "0123");
    break;
  case "engine-import": {
    // The engine's own ways to bring an existing object in (test/cli/engine-import.test.ts): the
    // `import` resource option, and a read resource (`id` in the options, what a static `get`
    // does). Config names the objects; the inputs differ from what the server holds on purpose.
    const how = cfg.require("how");
    const nc = (name, opts, extra) => new svc.runs.NotificationConfiguration(name, {
      workspaceId: cfg.require("workspaceId"), name: "by-hand", destinationType: "generic",
      url: "https://hooks.example/a", triggers: ["run:completed"], ...extra,
    }, opts);
    if (how === "import-alphabet") alphabet("by-import", "0123", { import: "transform/alphabet/held" });
    if (how === "import-nc") nc("nc-by-import", { import: cfg.require("ncId") });
    if (how === "get" && step === 1) {
      // Only the name (the path) is given of the alphabet; its characters are the program's guess.
      const read = new svc.secrets.transform.Alphabet("by-get", { name: "held", alphabet: "01" }, { id: "transform/alphabet/held" });
      // Read with its own connection, whose token is a secret.
      const hook = nc("nc-by-get", { id: cfg.require("ncId") }, {
        name: "guess", connection: { url: cfg.require("runUrl"), token: cfg.requireSecret("runToken") },
      });
      nc("nc-by-get-again", { id: cfg.require("ncId") });
      exports.readAlphabet = read.alphabet;
      exports.readHookName = hook.name;
    }
    if (how === "static-get" && step === 1) {
      // The classes' static get: only the id. A path names the inputs the read needs.
      const key = svc.secrets.keymgmt.Key.get("key-by-get", "keymgmt/key/held-key");
      const chars = svc.secrets.transform.Alphabet.get("alphabet-by-get", "transform/alphabet/held");
      const hook = svc.runs.NotificationConfiguration.get("nc-by-static-get", cfg.require("ncId"));
      exports.keyVersion = key.latestVersion;
      exports.keyMount = key.mount;
      exports.staticAlphabet = chars.alphabet;
      exports.staticHookName = hook.name;
      exports.isKey = [svc.secrets.keymgmt.Key.isInstance(key), svc.secrets.keymgmt.Key.isInstance(chars)];
    }
    // Step 3: an object that is not there; its read fails naming it.
    if (how === "static-get" && step === 3) svc.secrets.transform.Alphabet.get("gone-by-get", "transform/alphabet/gone");
    break;
  }
  case "partial":
    // Step 1 times out waiting (the emulator's clock is stopped): the run is kept in state with the
    // error; step 2 is the same program again once runs move on.
    new svc.runs.Run("partial", {
      workspaceId: cfg.require("workspaceId"),
      message: "partial failure",
      waitFor: "completed",
      timeoutSeconds: 1,
      pollIntervalSeconds: 0.05,
    });
    break;
  case "fanout":
    // One Run per workspace, each waiting for its run and applying it; some workspaces hold their
    // runs (the test seeds them), so those creates time out and stop their runs.
    for (const [i, workspaceId] of cfg.require("workspaces").split(",").entries()) {
      new svc.runs.Run(`fan-${i}`, {
        workspaceId,
        message: `fan-out ${i}`,
        waitFor: "completed",
        applyWhenConfirmable: true,
        timeoutSeconds: cfg.requireNumber("timeoutSeconds"),
        pollIntervalSeconds: 0.5,
      });
    }
    break;
  case "parallel":
    for (let i = 0; i < cfg.requireNumber("count"); i++) alphabet(`bulk-${i}`, "0123456789");
    break;
  case "errors":
    // Two objects to refresh; step 2 also calls a function whose request the test makes fail.
    alphabet("quiet-a", "0123");
    alphabet("quiet-b", "0123");
    if (step === 2) svc.secrets.transform.listAlphabetsOutput({});
    // Step 3: a value inside a list is invalid; the engine must not print it as missing.
    if (step === 3) {
      new svc.runs.NotificationConfiguration("bad-trigger", {
        workspaceId: "ws-behaviours0001", name: "bad", destinationType: "generic", url: "https://hooks.example/x",
        triggers: ["run:created", "run:exploded"],
      });
    }
    break;
  case "order":
    // Step 2 changes the key's type: a replacement, the old key deleted first (every kind's default).
    new svc.secrets.keymgmt.Key("order-key", { name: "order-key", type: step === 1 ? "aes256-gcm96" : "rsa-2048", deletionAllowed: true });
    // and renames an alphabet whose program asks a replacement to be created first (a new path allows it).
    new svc.secrets.transform.Alphabet("order-alphabet", { name: step === 1 ? "order-a" : "order-b", alphabet: "0123" }, { deleteBeforeReplace: false });
    break;
  case "rotation":
    alphabet("rotated", "0123");
    break;
  case "secret":
    // The test changes only the secret token between ups (stack config behaviours:hookToken).
    new svc.runs.NotificationConfiguration("signed", {
      workspaceId: cfg.require("workspaceId"),
      name: "signed",
      destinationType: "generic",
      url: "http://127.0.0.1:9/hook",
      token: cfg.requireSecret("hookToken"),
    });
    break;
  default:
    throw new Error(`unknown scenario ${scenario}`);
}
