/**
 * Progress lines against the resource that makes them. The dynamic-provider host hands a provider
 * neither the resource's URN nor a log: the URN comes in as the hidden input `__urn` (the program
 * computes it with pulumi.createUrn; the CLI shows no property whose name starts with `__`), and the
 * engine's address is the host's first argument, to which this sends the engine's own Log call, as
 * a provider plugin does. Anywhere else (a program process, the engine double's placeholder address)
 * it returns false and the caller prints the line as before.
 */
import * as path from "path";

type Client = { log(req: unknown, done: (err: unknown) => void): void };
type Messages = { LogRequest: new () => LogRequest; LogSeverity: { INFO: number; WARNING: number } };
type LogRequest = { setSeverity(s: number): void; setMessage(m: string): void; setUrn(u: string): void; setEphemeral(e: boolean): void };
let client: { call: Client; pb: Messages } | null | undefined;

function engineAddress(): string | undefined {
  const script = process.argv[1] ?? "";
  const addr = process.argv[2] ?? "";
  if (!/dynamic-provider[\\/]index\.js$/.test(script)) return undefined;
  return /^[\w.:[\]-]+:[1-9]\d*$/.test(addr) ? addr : undefined;
}

function engine(): { call: Client; pb: Messages } | null {
  if (client !== undefined) return client;
  client = null;
  const addr = engineAddress();
  if (!addr) return client;
  try {
    // The SDK's own gRPC and generated stubs, so the call is the one the engine expects of it.
    const sdk = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
    const grpc = require(require.resolve("@grpc/grpc-js", { paths: [sdk] }));
    const stubs = require(path.join(sdk, "proto", "engine_grpc_pb.js"));
    const pb = require(path.join(sdk, "proto", "engine_pb.js")) as Messages;
    client = { call: new stubs.EngineClient(addr, grpc.credentials.createInsecure()) as Client, pb };
  } catch {
    client = null;
  }
  return client;
}

/** Sends `line` to the engine's log under `urn` (as a warning when told); false when there is no engine to send it to. */
export function logToEngine(line: string, urn: string, severity: "info" | "warning" = "info"): boolean {
  const c = engine();
  if (!c) return false;
  const req = new c.pb.LogRequest();
  req.setSeverity(severity === "warning" ? c.pb.LogSeverity.WARNING : c.pb.LogSeverity.INFO);
  req.setMessage(line);
  req.setUrn(urn);
  req.setEphemeral(false);
  c.call.log(req, (err) => {
    if (err) process.stderr.write(`${line}\n`);
  });
  return true;
}
