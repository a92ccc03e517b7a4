// Drives pulumi-svc stacks through the Automation API in one Node process, as a user's tool would:
// the stacks named in its last argument, all at once ("local" is the local program, any other name
// an inline program), each through preview, up (outputs read back), refresh and destroy. Run by
// test/cli/automation.test.ts, several processes at once; prints one JSON line with what it saw.
"use strict";
const path = require("path");
const { LocalWorkspace, PulumiCommand } = require("@pulumi/pulumi/automation");
const pulumi = require("@pulumi/pulumi");
const svc = require("pulumi-svc");

const [cliDir, base, emulatorJson, stackList] = process.argv.slice(2);
const emu = JSON.parse(emulatorJson);

// The provider host starts in this process's current directory (the project, where node_modules
// holds pulumi-svc) and resolves modules from there; workDir only holds Pulumi.yaml and settings.
function options(name, command) {
  return {
    workDir: path.join(base, name),
    pulumiCommand: command,
    envVars: {
      PULUMI_BACKEND_URL: `file://${path.join(base, "backend")}`,
      PULUMI_CONFIG_PASSPHRASE: "automation-tests",
      PULUMI_HOME: path.join(base, "home"),
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    },
  };
}

const config = {
  "svc:secretsUrl": { value: emu.secretsUrl },
  "svc:secretsToken": { value: emu.secretsToken, secret: true },
  "svc:runUrl": { value: emu.runUrl },
  "svc:runToken": { value: emu.runToken, secret: true },
};

/** An inline program: one alphabet and a template on it, their names exported. */
const inline = (prefix) => async () => {
  const digits = new svc.secrets.transform.Alphabet(`${prefix}-digits`, { name: `${prefix}-digits`, alphabet: "0123456789" });
  const tpl = new svc.secrets.transform.Template(`${prefix}-tpl`, { name: `${prefix}-tpl`, pattern: "(\\d{4})", alphabet: digits.name });
  return { alphabet: digits.name, template: tpl.name, serverUrl: digits.serverUrl, secretsUrl: pulumi.output(emu.secretsUrl) };
};

async function lifecycle(stack) {
  const seen = {};
  await stack.setAllConfig(config);
  seen.preview = (await stack.preview()).changeSummary;
  const up = await stack.up();
  seen.up = up.summary.resourceChanges;
  seen.outputs = Object.fromEntries(Object.entries(up.outputs).map(([k, v]) => [k, v.value]));
  // What the engine stored as the serialized provider of the first alphabet, and where it says the
  // alphabet was declared.
  const state = await stack.exportStack();
  const alphabet = state.deployment.resources.find((r) => r.type.endsWith("TransformAlphabet"));
  seen.provider = alphabet.inputs.__provider;
  seen.source = alphabet.sourcePosition;
  seen.refresh = (await stack.refresh()).summary.resourceChanges;
  seen.destroy = (await stack.destroy()).summary.resourceChanges;
  await stack.workspace.removeStack(stack.name);
  return seen;
}

/** A stack of the local program: a folder with Pulumi.yaml whose main is a program file. */
async function localStack(command) {
  const local = await LocalWorkspace.createOrSelectStack({ stackName: "local", workDir: path.join(base, "local") }, options("local", command));
  await local.setConfig("behaviours:scenario", { value: "parallel" });
  await local.setConfig("behaviours:count", { value: "3" });
  return local;
}

async function main() {
  require("fs").mkdirSync(path.join(base, "backend"), { recursive: true });
  const command = await PulumiCommand.get({ root: path.dirname(cliDir), skipVersionCheck: true });
  const names = stackList.split(",");
  // Every stack of this process at once; other processes may drive theirs in the same backend.
  const seen = await Promise.all(names.map(async (name) => {
    const stack = name === "local"
      ? await localStack(command)
      : await LocalWorkspace.createOrSelectStack({ projectName: "auto-inline", stackName: name, program: inline(name) }, options(`inline-${name}`, command));
    return lifecycle(stack);
  }));
  process.stdout.write(`${JSON.stringify(Object.fromEntries(names.map((name, i) => [name, seen[i]])))}\n`);
}

main().catch((e) => {
  process.stderr.write(`${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
