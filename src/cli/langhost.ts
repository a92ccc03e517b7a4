/**
 * Our own Node.js language host for the real Pulumi CLI (`pulumi-language-nodejs`, started by the
 * engine through langhost/pulumi-language-nodejs). The Go module proxy refuses the official
 * host (docs/real-cli.md), so this implements the part of the LanguageRuntime gRPC service the CLI
 * uses for preview/up/refresh/destroy/import: it prints its port, answers Handshake, GetPluginInfo,
 * GetRequiredPlugins/Packages, About, GetProgramDependencies, RuntimeOptionsPrompts, and its Run
 * starts `node <@pulumi/pulumi>/cmd/run` for the program, exactly what the SDK's own runner expects.
 * TypeScript programs are left to the runner's vendored ts-node, as with the official host.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";

type Grpc = typeof import("@grpc/grpc-js");
type Lang = typeof import("@pulumi/pulumi/proto/language_pb");
type Plugin = typeof import("@pulumi/pulumi/proto/plugin_pb");
type Services = typeof import("@pulumi/pulumi/proto/language_grpc_pb");
type RunRequest = import("@pulumi/pulumi/proto/language_pb").RunRequest;

// The gRPC library and stubs of the @pulumi/pulumi installed beside this host, so both sides of the
// wire use the SDK's own generated code.
const sdkRequire = createRequire(require.resolve("@pulumi/pulumi"));
const grpc = sdkRequire("@grpc/grpc-js") as Grpc;
const lang = sdkRequire("@pulumi/pulumi/proto/language_pb") as Lang;
const plugin = sdkRequire("@pulumi/pulumi/proto/plugin_pb") as Plugin;
const services = sdkRequire("@pulumi/pulumi/proto/language_grpc_pb") as Services;
const sdkVersion = (sdkRequire("@pulumi/pulumi/package.json") as { version: string }).version;

// The engine passes its address as the last positional argument (flags such as -root come first).
let engineAddress = process.argv.slice(2).filter((a) => !a.startsWith("-")).at(-1) ?? "";

type Unary<Req, Res> = (call: { request: Req }, done: (err: Error | null, res?: Res) => void) => void;

function unary<Req, Res>(fn: (req: Req) => Res | Promise<Res>): Unary<Req, Res> {
  return (call, done) => {
    Promise.resolve().then(() => fn(call.request)).then((res) => done(null, res), (err: Error) => done(err));
  };
}

/**
 * The program folder and its entry point as the engine names them: ProgramInfo when it sends one,
 * else the older `pwd` and `program` fields. The entry goes to the runner as given: "." (Pulumi.yaml
 * has no `main`, or a folder) makes the runner take the nearest package.json's `main`, as the
 * official host does; a path made absolute here would hide that (it did: docs/real-cli.md).
 */
function programOf(req: RunRequest): { dir: string; entry: string } {
  const info = req.getInfo();
  if (info?.getProgramDirectory()) {
    return { dir: info.getProgramDirectory(), entry: info.getEntryPoint() || "." };
  }
  return { dir: req.getPwd() || process.cwd(), entry: req.getProgram() || "." };
}

/** The SDK's runner, resolved from the program folder as Node resolves the program's own imports. */
function runnerFor(dir: string): string {
  return createRequire(path.join(dir, "noop.js")).resolve("@pulumi/pulumi/cmd/run");
}

function run(req: RunRequest): Promise<InstanceType<Lang["RunResponse"]>> {
  const { dir, entry } = programOf(req);
  // Pulumi.yaml's runtime options, read as the official host reads them.
  const options = (req.getInfo()?.getOptions()?.toJavaScript() ?? {}) as { typescript?: unknown; tsconfig?: unknown; nodeargs?: unknown };
  const nodeargs = typeof options.nodeargs === "string" ? options.nodeargs.split(/\s+/).filter(Boolean) : [];
  const args = [...nodeargs, runnerFor(dir), `--monitor=${req.getMonitorAddress()}`];
  const flag = (k: string, v: string | number | undefined) => { if (v !== undefined && v !== "" && v !== 0) args.push(`--${k}=${v}`); };
  flag("engine", engineAddress);
  flag("organization", req.getOrganization());
  flag("project", req.getProject());
  flag("stack", req.getStack());
  flag("root-directory", req.getInfo()?.getRootDirectory());
  flag("pwd", dir);
  flag("parallel", req.getParallel());
  if (req.getDryrun()) args.push("--dry-run");
  args.push(entry, ...req.getArgsList());

  const config: Record<string, string> = {};
  req.getConfigMap().forEach((v, k) => { config[k] = v; });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PULUMI_CONFIG: JSON.stringify(config),
    PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(req.getConfigsecretkeysList()),
  };
  // `typescript` (default true) makes the SDK's runner load ts-node for .ts programs.
  if (options.typescript !== false) env.PULUMI_NODEJS_TYPESCRIPT = "true";
  if (typeof options.tsconfig === "string" && options.tsconfig) env.PULUMI_NODEJS_TSCONFIG_PATH = options.tsconfig;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: dir, env, stdio: ["ignore", "inherit", "inherit"] });
    programs.add(child);
    const res = new lang.RunResponse();
    child.on("error", (e) => resolve(res.setError(`could not start the program: ${e.message}`)));
    child.on("exit", (code, signal) => {
      programs.delete(child);
      // The SDK's runner exits 32 once it has reported the error itself; the engine then only bails.
      if (code === 32) res.setBail(true);
      else if (code !== 0) res.setError(`Program exited with ${signal ? `signal ${signal}` : `non-zero exit code: ${code}`}`);
      resolve(res);
    });
  });
}

/** The programs this host started that still run: they end with the engine. */
const programs = new Set<ChildProcess>();

/**
 * Ends this host when the engine that started it is gone. The engine (the `pulumi` process) starts
 * each plugin with a pipe on stdin whose other end it alone holds and never writes to, so the pipe
 * ends exactly when that process ends, however it ended: a SIGKILL leaves it no time to stop its
 * plugins, and the host, given to init, would serve no one for ever while its program went on
 * calling the services' functions with nothing recording them. Only a pipe is watched: a host
 * started from a terminal or with /dev/null has no engine to outlive.
 */
function endWithEngine(): void {
  if (!stdinIsPipe()) return;
  process.stdin.once("end", engineGone);
  process.stdin.once("error", engineGone);
  process.stdin.resume();
}

function stdinIsPipe(): boolean {
  try {
    const stdin = fs.fstatSync(0);
    return stdin.isFIFO() || stdin.isSocket();
  } catch {
    return false;
  }
}

/** Stops the programs as the engine stops a plugin (SIGINT, SIGKILL 5 s later), then exits. */
function engineGone(): void {
  const left = [...programs];
  if (!left.length) process.exit(0);
  for (const child of left) {
    child.once("exit", () => { if (!programs.size) process.exit(0); });
    child.kill("SIGINT");
  }
  setTimeout(() => {
    for (const child of left) child.kill("SIGKILL");
    process.exit(0);
  }, 5_000);
}

/** The direct dependencies of the program's package.json, for `pulumi about`. */
function dependencies(dir: string): InstanceType<Lang["DependencyInfo"]>[] {
  let pkgDir = dir;
  while (!fs.existsSync(path.join(pkgDir, "package.json")) && path.dirname(pkgDir) !== pkgDir) pkgDir = path.dirname(pkgDir);
  const file = path.join(pkgDir, "package.json");
  if (!fs.existsSync(file)) return [];
  const pkg = JSON.parse(fs.readFileSync(file, "utf8")) as { dependencies?: Record<string, string> };
  return Object.entries(pkg.dependencies ?? {}).map(([name, version]) => new lang.DependencyInfo().setName(name).setVersion(version));
}

function main(): void {
  endWithEngine();
  const server = new grpc.Server();
  server.addService(services.LanguageRuntimeService, {
    handshake: unary((req: InstanceType<Lang["LanguageHandshakeRequest"]>) => {
      engineAddress = req.getEngineAddress() || engineAddress;
      return new lang.LanguageHandshakeResponse();
    }),
    getPluginInfo: unary(() => new plugin.PluginInfo().setVersion(sdkVersion)),
    // Dynamic providers need only the pulumi-nodejs plugin, which the engine loads by itself.
    getRequiredPlugins: unary(() => new lang.GetRequiredPluginsResponse()),
    getRequiredPackages: unary(() => new lang.GetRequiredPackagesResponse()),
    run: unary(run),
    about: unary(() => new lang.AboutResponse().setExecutable(process.execPath).setVersion(process.version)),
    getProgramDependencies: unary((req: InstanceType<Lang["GetProgramDependenciesRequest"]>) =>
      new lang.GetProgramDependenciesResponse().setDependenciesList(dependencies(req.getInfo()?.getProgramDirectory() ?? process.cwd()))),
    runtimeOptionsPrompts: unary(() => new lang.RuntimeOptionsResponse()),
    // The programs are installed and compiled by the repository's own npm and tsc.
    installDependencies: (call: { end: () => void }) => call.end(),
    cancel: unary(() => new (sdkRequire("google-protobuf/google/protobuf/empty_pb") as typeof import("google-protobuf/google/protobuf/empty_pb")).Empty()),
  } as never);
  server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) {
      console.error(`pulumi-language-nodejs: ${err.message}`);
      process.exit(1);
    }
    // The engine reads the port from the first line of our stdout.
    process.stdout.write(`${port}\n`);
  });
}

main();
