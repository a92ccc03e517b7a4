const fs = require("fs"), path = require("path");
const { startEmulator } = require("./dist/src/emulator");
const { installedProject } = require("./dist/src/engine/installed");
const { cliEnv, mustPulumi, seconds } = require("./dist/bench/cli");
(async () => {
  const emu = await startEmulator();
  const project = installedProject("refprof-");
  const N = Number(process.env.N || 1000);
  try {
    fs.writeFileSync(path.join(project.dir, "index.js"), `const svc = require("pulumi-svc");\nfor (let i = 0; i < ${N}; i++) new svc.secrets.transform.Alphabet("a-" + i, { name: "a-" + i, alphabet: "0123456789" });\n`);
    fs.writeFileSync(path.join(project.dir, "Pulumi.yaml"), "name: refprof\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n");
    const env = cliEnv(project.dir);
    await mustPulumi(project.dir, env, ["stack", "init", "s"]);
    await mustPulumi(project.dir, env, ["config", "set-all", "--plaintext", `svc:secretsUrl=${emu.secretsUrl}`, "--secret", `svc:secretsToken=${emu.tokens.secretsUser}`]);
    let t = process.hrtime.bigint();
    await mustPulumi(project.dir, env, ["up", "--yes", "--skip-preview", "--parallel", "16"]);
    console.log("up", seconds(t));
    for (const prof of [false, true, false]) {
      t = process.hrtime.bigint();
      await mustPulumi(project.dir, prof ? { ...env, NODE_OPTIONS: "--require /tmp/profhook.js" } : env, ["refresh", "--yes", "--skip-preview", "--parallel", "16"]);
      console.log("refresh", prof, seconds(t));
    }
    t = process.hrtime.bigint();
    await mustPulumi(project.dir, env, ["destroy", "--yes", "--skip-preview", "--parallel", "16"]);
    console.log("destroy", seconds(t));
  } finally { project.remove(); await emu.close(); }
})().catch((e) => { console.error(e); process.exit(1); });
