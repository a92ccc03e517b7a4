// The npm tarball as users get it, shared by the package tests.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { root } from "../support/dist";

export const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/**
 * `env` for an npm command that may reach the registry. .ci/run starts the tests without the
 * machine's NODE_EXTRA_CA_CERTS, which Node 20 reads at every process's start (about 50 ms of CPU
 * each, some 2,500 processes a run), and keeps it in SVC_REGISTRY_CA_CERTS for these commands.
 */
export function registryEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const ca = process.env.SVC_REGISTRY_CA_CERTS;
  return ca ? { ...env, NODE_EXTRA_CA_CERTS: ca } : env;
}

/** Packs the built package into `dir` and returns the tarball's path. */
export function packTarball(dir: string): string {
  if (!fs.existsSync(path.join(root, "dist/src/index.d.ts"))) throw new Error("dist/ is missing: run npm run build (npm test does)");
  const out = execFileSync(npm, ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  return path.join(dir, (JSON.parse(out) as { filename: string }[])[0]!.filename);
}

/**
 * A user's program folder in `dir`: test/package/fixture/index.ts with the packed package
 * installed as npm would (extracted under node_modules) and its dependencies linked from this
 * repository, so no registry is needed.
 */
export function fixtureProject(dir: string): string {
  const tarball = packTarball(dir);
  const project = path.join(dir, "program");
  const modules = path.join(project, "node_modules");
  fs.mkdirSync(path.join(modules, "@pulumi"), { recursive: true });
  fs.mkdirSync(path.join(modules, "@types"), { recursive: true });
  execFileSync("tar", ["xzf", tarball, "-C", dir]);
  fs.renameSync(path.join(dir, "package"), path.join(modules, "pulumi-svc"));
  const runtime = Object.keys((JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { dependencies?: Record<string, string> }).dependencies ?? {});
  for (const dep of ["@pulumi/pulumi", "@types/node", ...runtime]) {
    fs.symlinkSync(path.join(root, "node_modules", dep), path.join(modules, dep), "dir");
  }
  fs.copyFileSync(path.join(root, "test/package/fixture/index.ts"), path.join(project, "index.ts"));
  return project;
}

/**
 * The tsconfig.json of Pulumi's `typescript` template (`pulumi new typescript`), as the
 * pulumi/templates repository has it since March 2026 (commit 81e6522, "Use moduleResolution:
 * nodenext"; still so on 2026-08-04): no skipLibCheck, no esModuleInterop.
 */
export const PULUMI_TEMPLATE = {
  strict: true, outDir: "bin", target: "es2020", module: "nodenext", moduleResolution: "nodenext", sourceMap: true,
  experimentalDecorators: true, pretty: true, noFallthroughCasesInSwitch: true, noImplicitReturns: true,
  forceConsistentCasingInFileNames: true,
};

/** The template before that commit, what older projects still have: TypeScript 6 refuses its resolution, 7 removed it. */
export const OLD_PULUMI_TEMPLATE = { ...PULUMI_TEMPLATE, module: "commonjs", moduleResolution: "node" };

/** The other resolutions a program may choose. */
export const MODERN_RESOLUTIONS: Record<string, Record<string, unknown>> = {
  node16: { ...PULUMI_TEMPLATE, module: "node16", moduleResolution: "node16" },
  bundler: { ...PULUMI_TEMPLATE, module: "esnext", moduleResolution: "bundler" },
};

/**
 * What `tsc` (the file of a TypeScript release's bin/tsc) prints type-checking the fixture project
 * under `compilerOptions`: "" when it compiles. Plain text, one line a diagnostic. With `emit`,
 * it also writes the program where the options say (the template's bin/).
 */
export function compileOutput(tsc: string, project: string, name: string, compilerOptions: Record<string, unknown>, emit = false): string {
  const file = path.join(project, `tsconfig.${name.replace(/\W/g, "")}.json`);
  fs.writeFileSync(file, JSON.stringify({ compilerOptions: { ...compilerOptions, pretty: false, noEmit: !emit }, files: ["index.ts"] }));
  try {
    execFileSync(process.execPath, [tsc, "-p", file], { cwd: project, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return "";
  } catch (e) {
    return `${(e as { stdout?: string }).stdout ?? ""}${(e as { stderr?: string }).stderr ?? ""}` || String(e);
  }
}
