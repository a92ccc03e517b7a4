// Drives the real @pulumi/pulumi dynamic-provider host over gRPC, as the Pulumi engine does.
//
// The host is `@pulumi/pulumi/cmd/dynamic-provider/index.js`: it binds 127.0.0.1:0, prints the
// port and serves pulumirpc.ResourceProvider. Each call carries `__provider` (the serialized
// provider text) in its properties; the host evaluates it with a `require` rooted at its cwd.
import { ChildProcess, spawn } from "child_process";
import { randomUUID } from "crypto";
import * as path from "path";
import type * as grpcTypes from "@grpc/grpc-js";
import type * as structTypes from "google-protobuf/google/protobuf/struct_pb";
import type * as provprotoTypes from "@pulumi/pulumi/proto/provider_pb";
import type * as provrpcTypes from "@pulumi/pulumi/proto/provider_grpc_pb";
import type * as statusTypes from "@pulumi/pulumi/proto/status_pb";
import { PropertyMap, plainMap, toJson } from "./values";
import { endChild } from "./child";
import { parseUrn } from "../core/urn";
import { compiledPath } from "../core/compiledPath";
import { HOST_SCRIPT_IN_SDK } from "./deferred";

// Load gRPC and protobuf through @pulumi/pulumi's own resolution so the message classes and
// the grpc-js instance are the ones its generated stubs use (instanceof checks depend on it).
const pulumiDir = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
const fromPulumi = (id: string): unknown => require(require.resolve(id, { paths: [pulumiDir] }));
const grpc = fromPulumi("@grpc/grpc-js") as typeof grpcTypes;
const struct = fromPulumi("google-protobuf/google/protobuf/struct_pb") as typeof structTypes;
const provproto = require(path.join(pulumiDir, "proto/provider_pb")) as typeof provprotoTypes;
const provrpc = require(path.join(pulumiDir, "proto/provider_grpc_pb")) as typeof provrpcTypes;
const statusproto = require(path.join(pulumiDir, "proto/status_pb")) as typeof statusTypes;

/** Absolute path of the host script the engine launches for dynamic providers. */
export const HOST_SCRIPT = path.join(pulumiDir, HOST_SCRIPT_IN_SDK);

export interface HostOptions {
  /** The program directory: the host's require() of the serialized provider resolves from here. */
  cwd: string;
  /** Added to this process's environment; an undefined value removes the variable. */
  env?: Record<string, string | undefined>;
  /** How long to wait for the host to print its port. */
  startTimeoutMs?: number;
  /** End the host when this process ends, however it ends (a host kept between deployments: src/engine/watchdog.ts). */
  endWithParent?: boolean;
  /** Modules the host loads before anything else (`--require`). */
  preload?: string[];
  /**
   * False starts the host as the Pulumi CLI does, with every package the SDK loads at its start
   * (bench/coldstart.ts measures what the CLI's hosts pay); by default those a host never runs wait
   * until touched (src/engine/deferred.ts).
   */
  deferSdkPackages?: boolean;
}

export interface CheckFailure { property: string; reason: string }
export interface DiffResult { changes: boolean | undefined; replaces: string[]; deleteBeforeReplace: boolean }

/** A create/update that failed after the object came to exist (ErrorResourceInitFailed). */
export class PartialFailureError extends Error {
  constructor(message: string, readonly id: string, readonly properties: PropertyMap, readonly reasons: string[]) {
    super(message);
    this.name = "PartialFailureError";
  }
}

type Unary<Req, Res> = (req: Req, cb: (err: grpcTypes.ServiceError | null, res: Res) => void) => unknown;

const toStruct = (v: object): structTypes.Struct => struct.Struct.fromJavaScript(toJson(plainMap(v)) as Record<string, structTypes.JavaScriptValue>);
const fromStruct = (s: structTypes.Struct | undefined): PropertyMap => (s ? (s.toJavaScript() as PropertyMap) : {});

export class ProviderHost {
  private readonly errText: string[] = [];
  private readonly outText: string[] = [];
  private client!: provrpcTypes.ResourceProviderClient;
  private exited = false;
  private inFlight = 0;
  /** Each provider text a call carried, with the type of the resource it served (what src/engine/reuse.ts asks). */
  readonly providers = new Map<string, string>();

  // The host's gRPC server keeps it alive forever: never leave it behind when we exit.
  private readonly killOnExit = (): void => void this.proc.kill("SIGKILL");

  private constructor(private readonly proc: ChildProcess) {
    process.on("exit", this.killOnExit);
    proc.on("exit", () => {
      this.exited = true;
      process.off("exit", this.killOnExit);
    });
    proc.stderr!.setEncoding("utf8").on("data", (d: string) => this.errText.push(d));
  }

  static async start(options: HostOptions): Promise<ProviderHost> {
    // The second argument is the engine address; the host only checks that one is given.
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...process.env, ...options.env })) if (v !== undefined) env[k] = v;
    // What the SDK loads and a host never runs, loaded when touched (src/engine/deferred.ts); after
    // the caller's preloads, so that a compile cache they start covers it.
    const preload = [...(options.endWithParent ? [compiledPath(__filename, "watchdog.js")] : []), ...(options.preload ?? []),
      ...(options.deferSdkPackages === false ? [] : [compiledPath(__filename, "deferred.js")])];
    const args = [...preload.flatMap((file) => ["--require", file]), HOST_SCRIPT, "127.0.0.1:0"];
    const proc = spawn(process.execPath, args, { cwd: options.cwd, env, stdio: [options.endWithParent ? "pipe" : "ignore", "pipe", "pipe"] });
    const host = new ProviderHost(proc);
    try {
      const port = await host.readPort(options.startTimeoutMs ?? 30_000);
      host.client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
        "grpc.max_receive_message_length": 400 * 1024 * 1024,
      });
    } catch (e) {
      proc.kill("SIGKILL");
      throw e;
    }
    return host;
  }

  /** The first stdout line is the port; later output (a provider's console.log) is kept. */
  private readPort(timeoutMs: number): Promise<number> {
    return new Promise((resolve, reject) => {
      let buf = "";
      let settled = false;
      const settle = (e: Error | undefined, port = 0): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (e) reject(new Error(`${e.message}\n${this.stderr()}`));
        else resolve(port);
      };
      const timer = setTimeout(() => settle(new Error(`dynamic provider host printed no port within ${timeoutMs} ms`)), timeoutMs);
      this.proc.on("error", (e) => settle(e));
      this.proc.on("exit", (code) => settle(new Error(`dynamic provider host exited (code ${code}) before printing its port`)));
      this.proc.stdout!.setEncoding("utf8").on("data", (d: string) => {
        if (settled) return void this.outText.push(d);
        buf += d;
        const nl = buf.indexOf("\n");
        if (nl < 0) return;
        const line = buf.slice(0, nl).trim();
        if (nl + 1 < buf.length) this.outText.push(buf.slice(nl + 1));
        const port = Number(line);
        settle(Number.isInteger(port) && port > 0 ? undefined : new Error(`dynamic provider host printed ${JSON.stringify(line)} instead of a port`), port);
      });
    });
  }

  /** Whether the host is running and serving no call. */
  get idle(): boolean {
    return !this.exited && this.inFlight === 0;
  }

  /**
   * Kept for later without holding this process open (`false`), or in use again (`true`): the
   * child and its pipes stop counting for Node's event loop while the host waits.
   */
  keepAlive(inUse: boolean): void {
    const handles = [this.proc, this.proc.stdin, this.proc.stdout, this.proc.stderr] as ({ ref(): void; unref(): void } | null)[];
    for (const h of handles) if (h) (inUse ? h.ref() : h.unref());
  }

  /**
   * Waits until all the host printed on stderr so far has arrived here. A host that goes on to the
   * next deployment may print the last lines of this one after its last answer (the two come on
   * different pipes): a provider made for this prints a line of its own, which comes after them.
   */
  async flushStderr(): Promise<void> {
    const marker = `pulumi-svc engine double: ${randomUUID()}\n`;
    const text = `exports.handler = () => ({ async check(olds, news) { process.stderr.write(${JSON.stringify(marker)}); return { inputs: news, failures: [] }; } });\n`;
    const arrived = new Promise<void>((resolve) => {
      const look = (): void => {
        if (!this.exited && !this.errText.join("").includes(marker)) return;
        this.proc.stderr!.off("data", look);
        this.proc.off("exit", look);
        resolve();
      };
      this.proc.stderr!.on("data", look);
      this.proc.on("exit", look);
    });
    await this.check("urn:pulumi:reuse::reuse::pulumi-nodejs:dynamic:Flush::flush", {}, { __provider: text });
    await arrived;
    this.providers.delete(text);
    const all = this.errText.join("");
    this.errText.splice(0, this.errText.length, all.replace(marker, ""));
  }

  /** The host's process id (tests check that close() ends it). */
  get pid(): number {
    return this.proc.pid!;
  }

  /** What the host printed on stderr (for assertions on leaked secrets). */
  stderr(): string {
    return this.errText.join("");
  }

  /** What the host (and the provider's console.log) printed on stdout after the port line. */
  stdout(): string {
    return this.outText.join("");
  }

  /** Sends the stack config, namespaced ("svc:runUrl"), always as args, as the engine does. */
  async configure(config: Record<string, string>): Promise<void> {
    const req = new provproto.ConfigureRequest();
    req.setArgs(toStruct(config));
    // The engine also sends the older "<package>:config:<key>" spelling as variables.
    const vars = req.getVariablesMap();
    for (const [k, v] of Object.entries(config)) vars.set(`pulumi-nodejs:config:${k}`, v);
    req.setAcceptsecrets(true);
    req.setAcceptresources(true);
    await this.call<provprotoTypes.ConfigureRequest, provprotoTypes.ConfigureResponse>(this.client.configure, req);
  }

  async check(urn: string, olds: object, news: object): Promise<{ inputs: PropertyMap; failures: CheckFailure[] }> {
    this.saw(urn, news);
    const req = about(new provproto.CheckRequest(), urn);
    req.setOlds(toStruct(olds));
    req.setNews(toStruct(news));
    const res = await this.call<provprotoTypes.CheckRequest, provprotoTypes.CheckResponse>(this.client.check, req);
    const failures = res.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() }));
    return { inputs: fromStruct(res.getInputs()), failures };
  }

  /** olds are the old outputs (as the engine sends); oldInputs travel too, the host ignores them. */
  async diff(urn: string, id: string, olds: object, news: object, oldInputs: object = {}): Promise<DiffResult> {
    this.saw(urn, news);
    const req = withChange(about(new provproto.DiffRequest(), urn, id), olds, news, oldInputs);
    const res = await this.call<provprotoTypes.DiffRequest, provprotoTypes.DiffResponse>(this.client.diff, req);
    const kind = res.getChanges();
    const C = provproto.DiffResponse.DiffChanges;
    return {
      changes: kind === C.DIFF_SOME ? true : kind === C.DIFF_NONE ? false : undefined,
      replaces: res.getReplacesList(),
      deleteBeforeReplace: res.getDeletebeforereplace(),
    };
  }

  async create(urn: string, props: object): Promise<{ id: string; outs: PropertyMap }> {
    this.saw(urn, props);
    const req = about(new provproto.CreateRequest(), urn);
    req.setProperties(toStruct(props));
    const res = await this.call<provprotoTypes.CreateRequest, provprotoTypes.CreateResponse>(this.client.create, req);
    return { id: res.getId(), outs: fromStruct(res.getProperties()) };
  }

  async read(urn: string, id: string, props: object, inputs: object = {}): Promise<{ id: string; props: PropertyMap; inputs?: PropertyMap }> {
    this.saw(urn, props);
    const req = about(new provproto.ReadRequest(), urn, id);
    req.setProperties(toStruct(props));
    req.setInputs(toStruct(inputs));
    const res = await this.call<provprotoTypes.ReadRequest, provprotoTypes.ReadResponse>(this.client.read, req);
    const ins = res.getInputs();
    return { id: res.getId(), props: fromStruct(res.getProperties()), ...(ins ? { inputs: fromStruct(ins) } : {}) };
  }

  async update(urn: string, id: string, olds: object, news: object, oldInputs: object = {}): Promise<{ outs: PropertyMap }> {
    this.saw(urn, news);
    const req = withChange(about(new provproto.UpdateRequest(), urn, id), olds, news, oldInputs);
    const res = await this.call<provprotoTypes.UpdateRequest, provprotoTypes.UpdateResponse>(this.client.update, req);
    return { outs: fromStruct(res.getProperties()) };
  }

  async delete(urn: string, id: string, props: object, oldInputs: object = {}): Promise<void> {
    this.saw(urn, props);
    const req = about(new provproto.DeleteRequest(), urn, id);
    req.setProperties(toStruct(props));
    req.setOldInputs(toStruct(oldInputs));
    await this.call(this.client.delete, req);
  }

  async close(): Promise<void> {
    this.client.close();
    if (!this.exited) await endChild(this.proc);
  }

  /** Promisifies a unary call and turns gRPC errors into plain Errors (or PartialFailureError). */
  private call<Req, Res>(method: Unary<Req, Res>, req: Req): Promise<Res> {
    this.inFlight++;
    return new Promise((resolve, reject) => {
      method.call(this.client, req, (err, res) => {
        this.inFlight--;
        if (err) reject(toError(err));
        else resolve(res);
      });
    });
  }

  private saw(urn: string, props: object): void {
    const text = (props as Record<string, unknown>).__provider;
    if (typeof text === "string") this.providers.set(text, urn.split("::")[2]?.split("$").pop() ?? "");
  }
}

/** A request about one resource: its URN (and its id, once it has one), with the name and type the URN holds (newer engines send both). */
function about<R extends { setUrn(v: string): unknown; setId?(v: string): unknown; setName(v: string): unknown; setType(v: string): unknown }>(
  req: R, urn: string, id?: string): R {
  req.setUrn(urn);
  if (id !== undefined) req.setId!(id);
  const parts = parseUrn(urn);
  if (parts === undefined) return req;
  req.setName(parts.name);
  req.setType(parts.type);
  return req;
}

/** What a Diff and an Update request both carry: the old outputs, the new inputs and the old inputs. */
function withChange<R extends { setOlds(v: structTypes.Struct): unknown; setNews(v: structTypes.Struct): unknown; setOldInputs(v: structTypes.Struct): unknown }>(
  req: R, olds: object, news: object, oldInputs: object): R {
  req.setOlds(toStruct(olds));
  req.setNews(toStruct(news));
  req.setOldInputs(toStruct(oldInputs));
  return req;
}

function toError(err: grpcTypes.ServiceError): Error {
  const message = err.details || err.message;
  for (const raw of err.metadata?.get("grpc-status-details-bin") ?? []) {
    const status = statusproto.Status.deserializeBinary(new Uint8Array(raw as Buffer));
    for (const any of status.getDetailsList()) {
      if (!any.getTypeName().endsWith("ErrorResourceInitFailed")) continue;
      const detail = provproto.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
      return new PartialFailureError(message, detail.getId(), fromStruct(detail.getProperties()), detail.getReasonsList());
    }
  }
  return new Error(message);
}

