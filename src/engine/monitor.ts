// Puts the engine double behind the SDK's resource monitor.
//
// `setMocks` installs a MockMonitor, but its `newResource` hook only sees deserialized
// inputs: secretness, additionalSecretOutputs, dependencies and the other resource options
// are gone by then. So after setMocks we take the monitor instance back out of the runtime
// settings (`runtime.getMonitor()` returns it when the monitor address is "mock") and replace
// its registerResource with one that reads the full RegisterResourceRequest, exactly what the
// engine receives, and answers with a RegisterResourceResponse built from our steps.
import * as path from "path";
import type * as pulumiTypes from "@pulumi/pulumi";
import type * as resprotoTypes from "@pulumi/pulumi/proto/resource_pb";
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { Deployment, type ReadRegistration, type Registration } from "./deployment";
import { pulumiEntry } from "./deferred";
import { PropertyMap } from "./values";

type Callback = (err: Error | null, res?: unknown) => void;

/** The parts of the SDK's MockMonitor we use or replace. */
interface MockMonitor {
  newUrn(parent: string, type: string, name: string): string;
  registerResource(req: resprotoTypes.RegisterResourceRequest, cb: Callback): void;
  readResource(req: resprotoTypes.ReadResourceRequest, cb: Callback): void;
  registerResourceOutputs(req: resprotoTypes.RegisterResourceOutputsRequest, cb: Callback): void;
}

export interface MonitorOptions {
  project: string;
  stack: string;
  preview: boolean;
  organization?: string;
  /**
   * Never answer a registration that failed (the program runs in the caller's process,
   * pulumi-svc/testing): an answer with the error rejects every output of the resource, and
   * nothing awaits most of them, so the caller's test runner would report each as an unhandled
   * rejection. The deployment has stopped by then, and the runner stops waiting for the program.
   */
  holdFailed?: boolean;
}

/** Loads the program's copy of @pulumi/pulumi, so setMocks reaches the runtime the program uses. */
export function loadPulumi(programDir: string): { pulumi: typeof pulumiTypes; dir: string } {
  const entry = pulumiEntry(programDir);
  return { pulumi: require(entry) as typeof pulumiTypes, dir: path.dirname(entry) };
}

export async function installEngine(pulumi: typeof pulumiTypes, pulumiDir: string, deployment: Deployment, opts: MonitorOptions): Promise<void> {
  const resproto = require(path.join(pulumiDir, "proto/resource_pb")) as typeof resprotoTypes;
  const struct = require(require.resolve("google-protobuf/google/protobuf/struct_pb", { paths: [pulumiDir] })) as { Struct: typeof Struct };
  await pulumi.runtime.setMocks(
    {
      newResource: () => {
        throw new Error("unreachable: registrations are handled by the engine double");
      },
      call: (args) => {
        throw new Error(`invoke ${args.token}: the engine double serves no provider functions`);
      },
    },
    opts.project,
    opts.stack,
    opts.preview,
    opts.organization,
  );
  const monitor = pulumi.runtime.getMonitor() as unknown as MockMonitor;

  // Each call is answered with what `build` makes of its result, or its error (held back with holdFailed).
  const answer = <T, R>(pending: Promise<T>, build: (res: T) => R, cb: (err: Error | null, resp?: R) => void) => {
    pending.then((res) => cb(null, build(res)), (err: Error) => {
      if (!opts.holdFailed) cb(err);
    });
  };
  const object = (outputs: unknown) => struct.Struct.fromJavaScript(outputs as Parameters<typeof Struct.fromJavaScript>[0]);

  monitor.registerResource = (req, cb) => answer(deployment.register(toRegistration(monitor, req)), (res) => {
    const resp = new resproto.RegisterResourceResponse();
    resp.setUrn(res.urn);
    resp.setId(res.id);
    resp.setObject(object(res.outputs));
    return resp;
  }, cb);

  // A read resource (`get`, `id` in the resource options): the engine reads the object on every
  // preview and up, records it as external and answers with what the read returned.
  monitor.readResource = (req, cb) => answer(deployment.read(toRead(monitor, req)), (res) => {
    const resp = new resproto.ReadResourceResponse();
    resp.setUrn(res.urn);
    resp.setProperties(object(res.outputs));
    return resp;
  }, cb);

  monitor.registerResourceOutputs = (req, cb) => {
    deployment.setOutputs(req.getUrn(), (req.getOutputs()?.toJavaScript() ?? {}) as PropertyMap);
    cb(null, {});
  };
}

/** Who a request names: its URN, type, name and parent, alike in a registration and a read. */
function named(monitor: MockMonitor, req: { getParent(): string; getType(): string; getName(): string }) {
  return { urn: monitor.newUrn(req.getParent(), req.getType(), req.getName()), type: req.getType(), name: req.getName(), parent: req.getParent() };
}

function toRegistration(monitor: MockMonitor, req: resprotoTypes.RegisterResourceRequest): Registration {
  const reg: Registration = {
    ...named(monitor, req),
    custom: req.getCustom(),
    object: (req.getObject()?.toJavaScript() ?? {}) as PropertyMap,
    dependencies: req.getDependenciesList(),
    propertyDependencies: propertyDependencies(req),
    additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
    ignoreChanges: req.getIgnorechangesList(),
    replaceOnChanges: req.getReplaceonchangesList(),
    aliases: aliasUrns(monitor, req),
  };
  if (req.getDeletebeforereplacedefined()) reg.deleteBeforeReplace = req.getDeletebeforereplace();
  if (req.getProtect()) reg.protect = true;
  if (req.getRetainondelete()) reg.retainOnDelete = true;
  return reg;
}

/** What a ReadResourceRequest asks: the object's id and the program's inputs. */
function toRead(monitor: MockMonitor, req: resprotoTypes.ReadResourceRequest): ReadRegistration {
  return {
    ...named(monitor, req),
    id: req.getId(),
    object: (req.getProperties()?.toJavaScript() ?? {}) as PropertyMap,
    dependencies: req.getDependenciesList(),
    additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
  };
}

/** Per input, the URNs its value came from (only inputs that came from some). */
function propertyDependencies(req: resprotoTypes.RegisterResourceRequest): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  req.getPropertydependenciesMap().forEach((deps, key) => {
    if (deps.getUrnsList().length > 0) out[key] = deps.getUrnsList();
  });
  return out;
}

/** The URNs a resource was known by (alias URNs and alias specs), so a rename finds its old state. */
function aliasUrns(monitor: MockMonitor, req: resprotoTypes.RegisterResourceRequest): string[] {
  const urns = [...req.getAliasurnsList()];
  for (const a of req.getAliasesList()) {
    if (a.getUrn()) {
      urns.push(a.getUrn());
      continue;
    }
    const spec = a.getSpec();
    if (!spec) continue;
    const parent = spec.getNoparent() ? "" : spec.getParenturn() || req.getParent();
    urns.push(monitor.newUrn(parent, spec.getType() || req.getType(), spec.getName() || req.getName()));
  }
  return urns;
}
