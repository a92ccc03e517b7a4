// The node half of scripts/legacy-fixtures.sh: deploys the legacy-state fixture's program with an
// OLD build of pulumi-svc (its emulator, engine double and provider) and writes the stack states,
// the emulator states and their keys under test/program/fixtures/legacy/. Plain CommonJS: it loads
// the old build's dist/, never this checkout's.
//
//   node scripts/legacy-fixtures.js <old checkout, built> <fixture folder> <commit>
"use strict";
const crypto = require("node:crypto");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const [oldRoot, out, commit] = process.argv.slice(2);
if (!oldRoot || !out || !commit) throw new Error("usage: node scripts/legacy-fixtures.js <old checkout> <fixture folder> <commit>");
const fromOld = (file) => require(path.join(oldRoot, "dist", file));
const { startEmulator } = fromOld("src/emulator/index.js");
const { runProgram } = fromOld("src/engine/program.js");
const { installedProject } = fromOld("src/engine/installed.js");
const { DEFAULT_PASSPHRASE } = fromOld("src/engine/state.js");

// Only the stack config counts, and the emulator's key is the key file beside its state.
for (const k of Object.keys(process.env)) if (k.startsWith("SVC_")) delete process.env[k];

const PROJECT = "pulumi-svc-legacy-state";
const STACK = "dev";
const EXAMPLES = ["quickstart", "keymgmt", "identity", "registry", "runs"];

/** The program: index.js and extra.js as committed, and the old build's compiled examples. */
function writeExamples() {
  const dest = path.join(out, "program/examples");
  fs.rmSync(dest, { recursive: true, force: true });
  for (const example of EXAMPLES) {
    const from = path.join(oldRoot, "dist/examples", example);
    fs.mkdirSync(path.join(dest, example), { recursive: true });
    for (const file of ["index.js", "shared.js"]) {
      if (!fs.existsSync(path.join(from, file))) continue;
      const text = fs.readFileSync(path.join(from, file), "utf8").replace(/\n\/\/# sourceMappingURL=.*\n?$/, "\n");
      fs.writeFileSync(path.join(dest, example, file), text);
    }
  }
}

async function control(emu, method, p, body) {
  const res = await fetch(`${emu.controlUrl}${p}`, {
    method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return text === "" ? undefined : JSON.parse(text);
}

const secretValue = (name) => `${name}-${crypto.randomBytes(9).toString("hex")}`;

/** Placeholders the test fills in from the emulator serving the stack then: {runUrl}, {tokens.x}. */
function fill(map, emu) {
  const values = { runUrl: emu.runUrl, secretsUrl: emu.secretsUrl };
  for (const [k, v] of Object.entries(emu.tokens)) values[`tokens.${k}`] = v;
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, v.replace(/\{([\w.]+)\}/g, (_, name) => {
    if (!(name in values)) throw new Error(`unknown placeholder {${name}}`);
    return values[name];
  })]));
}

function stepOps(result) {
  return Object.fromEntries(result.steps.map((s) => [s.name, s.changedKeys?.length ? `${s.op} ${s.changedKeys.join(",")}` : s.op]));
}

async function deploy(layout) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `pulumi-svc-legacy-${layout}-`));
  const statePath = path.join(work, "emulator.json");
  const stack = path.join(work, "stack.json");
  const emu = await startEmulator({ statePath, flushMs: 0 });
  let installed;
  try {
    // What the examples expect of the emulator (their cli.json "setup" and emulator options).
    await control(emu, "PUT", "/clock", { autoAdvanceMs: 20 });
    await control(emu, "POST", "/directory/accounts", { accounts: ["svc-app", "pool-1", "pool-2"] });
    const management = await control(emu, "POST", "/registry/tokens", { type: "management" });

    // repo: the program inside the old checkout, so its providers are the by-value trampoline.
    // installed: the old package under node_modules of a user's project, so each provider is a
    // one-line require of dist/src/providers/<service>/<Kind>.js.
    let cwd;
    if (layout === "repo") cwd = oldRoot;
    else cwd = (installed = installedProject("pulumi-svc-legacy-installed-")).dir;
    const programDir = path.join(cwd, "legacy-program");
    fs.rmSync(programDir, { recursive: true, force: true });
    fs.cpSync(path.join(out, "program"), programDir, { recursive: true });

    const config = {
      "svc:runUrl": "{runUrl}",
      "svc:secretsUrl": "{secretsUrl}",
      // The webhook's address is the user's own input: kept as deployed (nothing calls it on refresh).
      "quickstart:hookUrl": `${emu.controlUrl}/sink/quickstart`,
      "runs:pollIntervalSeconds": "0.05",
      "runs:timeoutSeconds": "60",
    };
    const secretConfig = {
      "svc:runToken": "{tokens.runAdmin}",
      "svc:secretsToken": "{tokens.secretsUser}",
      "quickstart:hookToken": secretValue("hook"),
      "keymgmt:awsAccessKey": secretValue("AKIA"),
      "keymgmt:awsSecretKey": secretValue("aws"),
      "identity:sudoToken": "{tokens.secretsRoot}",
      "identity:pluginPassword": secretValue("plugin"),
      "identity:duoSecretKey": secretValue("duo"),
      "identity:duoIntegrationKey": secretValue("DI"),
      // Minted by the emulator's registry: a token of the emulator, kept in its sealed state.
      "registry:managementToken": management.token,
      "legacy:bindpass": secretValue("bind"),
      "legacy:storePassword": secretValue("store"),
      "legacy:adminPassword": secretValue("admin"),
      "legacy:sudoToken": "{tokens.secretsRoot}",
    };
    const run = (operation, state = stack) => runProgram({
      operation, program: path.join(programDir, "index.js"), state, cwd, stack: STACK, project: PROJECT,
      config: fill(config, emu), secretConfig: fill(secretConfig, emu),
      env: { PULUMI_CONFIG_PASSPHRASE: DEFAULT_PASSPHRASE }, timeoutMs: 300_000,
    });

    const up = await run("up");
    if (up.error) throw new Error(`${layout}: up failed: ${up.error}\n${up.diagnostics.join("\n")}`);
    const created = up.steps.filter((s) => s.op !== "create");
    if (created.length > 0) throw new Error(`${layout}: up did more than create: ${JSON.stringify(stepOps(up))}`);

    // The run's notifications reach the webhook after it was created, so the service's record of
    // its deliveries has moved on: a refresh takes that in, as a user's next refresh would.
    const settled = await run("refresh");
    if (settled.error) throw new Error(`${layout}: refresh failed: ${settled.error}`);

    // The old build agrees with itself: nothing to refresh (on a copy), nothing to change.
    const copy = path.join(work, "stack-refreshed.json");
    fs.copyFileSync(stack, copy);
    const refreshed = await run("refresh", copy);
    const preview = await run("preview");
    const moved = refreshed.steps.filter((s) => s.op !== "refresh" || s.changedKeys?.length);
    const changed = preview.steps.filter((s) => s.op !== "same");
    if (refreshed.error || preview.error || moved.length > 0 || changed.length > 0) {
      throw new Error(`${layout}: the old build does not agree with itself:\nrefresh ${refreshed.error ?? ""} ${JSON.stringify(stepOps(refreshed))}\n` +
        `preview ${preview.error ?? ""} ${JSON.stringify(stepOps(preview))}`);
    }

    await emu.close();
    const dest = path.join(out, layout);
    fs.mkdirSync(dest, { recursive: true });
    fs.copyFileSync(stack, path.join(dest, "stack.json"));
    fs.copyFileSync(statePath, path.join(dest, "emulator.json"));
    fs.copyFileSync(`${statePath}.key`, path.join(dest, "emulator.json.key"));
    const types = [...new Set(up.steps.map((s) => s.type))].sort();
    console.log(`${layout}: ${up.steps.length} resources of ${types.length} kinds`);
    return {
      deployed: { url: emu.url, runUrl: emu.runUrl, secretsUrl: emu.secretsUrl, controlUrl: emu.controlUrl },
      config, secretConfig,
    };
  } finally {
    await emu.close();
    installed?.remove();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

async function main() {
  writeExamples();
  const layouts = {};
  for (const layout of ["repo", "installed"]) layouts[layout] = await deploy(layout);
  const manifest = { commit, project: PROJECT, stack: STACK, passphrase: "the engine double's default (PULUMI_CONFIG_PASSPHRASE unset)", layouts };
  fs.writeFileSync(path.join(out, "stacks.json"), JSON.stringify(manifest, null, 2) + "\n");
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
