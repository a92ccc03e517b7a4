// The driver of bench/stacks.ts, copied into an installed project and run there (the provider host
// resolves pulumi-svc from this process's folder): K stacks of an inline program through the
// Automation API, all at once, one phase per line read on stdin ("up", "again", "destroy"), one
// JSON line written per phase: its wall time and, per stack, its time, change summary and error.
"use strict";
const path = require("path");
const readline = require("readline");
const { LocalWorkspace, PulumiCommand } = require("@pulumi/pulumi/automation");
const svc = require("pulumi-svc");

const [cliDir, base, settingsJson] = process.argv.slice(2);
const settings = JSON.parse(settingsJson);
const emu = settings.emulator;

/** Half alphabets (path-keyed), half notification configurations (ids the server assigns) in the stack's workspace. */
const program = (stack) => async () => {
  for (let i = 0; i < settings.count; i++) {
    const name = `${stack}-${i}`;
    if (i % 2 === 0) new svc.secrets.transform.Alphabet(name, { name, alphabet: "0123456789" });
    else new svc.runs.NotificationConfiguration(name, { workspaceId: emu.workspaces[stack], name, destinationType: "generic", url: "http://127.0.0.1:9/hook" });
  }
};

const options = (stack, command) => ({
  workDir: path.join(base, stack),
  pulumiCommand: command,
  envVars: {
    PULUMI_BACKEND_URL: `file://${path.join(base, "backend")}`,
    PULUMI_CONFIG_PASSPHRASE: "pulumi-svc-bench",
    PULUMI_HOME: path.join(base, "home"),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
  },
});

async function timed(stack, op) {
  const started = process.hrtime.bigint();
  try {
    const result = await op(stack);
    return { stack: stack.name, seconds: Number(process.hrtime.bigint() - started) / 1e9, changes: result.summary.resourceChanges };
  } catch (e) {
    return { stack: stack.name, seconds: Number(process.hrtime.bigint() - started) / 1e9, error: String(e && e.message ? e.message : e).slice(-2000) };
  }
}

const phases = {
  up: (s) => s.up(),
  again: (s) => s.up(),
  destroy: async (s) => {
    const result = await s.destroy();
    await s.workspace.removeStack(s.name);
    return result;
  },
};

async function main() {
  require("fs").mkdirSync(path.join(base, "backend"), { recursive: true });
  const command = await PulumiCommand.get({ root: path.dirname(cliDir), skipVersionCheck: true });
  const stacks = await Promise.all(settings.stacks.map(async (name) => {
    require("fs").mkdirSync(path.join(base, name), { recursive: true });
    const stack = await LocalWorkspace.createOrSelectStack({ projectName: "bench-stacks", stackName: name, program: program(name) }, options(name, command));
    await stack.setAllConfig({
      "svc:secretsUrl": { value: emu.secretsUrl },
      "svc:secretsToken": { value: emu.secretsToken, secret: true },
      "svc:runUrl": { value: emu.runUrl },
      "svc:runToken": { value: emu.runToken, secret: true },
    });
    return stack;
  }));
  process.stdout.write(`${JSON.stringify({ phase: "ready" })}\n`);
  for await (const line of readline.createInterface({ input: process.stdin })) {
    const op = phases[line.trim()];
    if (!op) throw new Error(`unknown phase ${line}`);
    const started = process.hrtime.bigint();
    const results = await Promise.all(stacks.map((s) => timed(s, op)));
    process.stdout.write(`${JSON.stringify({ phase: line.trim(), wall: Number(process.hrtime.bigint() - started) / 1e9, results })}\n`);
    if (line.trim() === "destroy") break;
  }
}

main().catch((e) => {
  process.stderr.write(`${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
