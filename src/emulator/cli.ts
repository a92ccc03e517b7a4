#!/usr/bin/env node
import { MAX_CLUSTERS, startEmulator, type Emulator, type EmulatorOptions } from "./index";
import { checkAllowedHost } from "./transport/sites";

/**
 * Someone who starts the command wants runs to finish by themselves: a queued run would otherwise
 * wait for control requests, and a Run resource for its whole timeout. One step every half second
 * takes a plan-and-apply to the end in a few seconds, slowly enough to watch the statuses go by.
 */
export const COMMAND_PACE_MS = 500;

const USAGE = `Usage: pulumi-svc-emulator [--port N] [--host HOST] [--state FILE] [--flush-ms N] [--clusters N]
                           [--auto-advance-ms N] [--load SNAPSHOT] [--allowed-host NAME]...

Runs the local emulator of the run service and the secrets service.
  --port N        TCP port (default 0: any free port)
  --host HOST     address to bind (default 127.0.0.1); beyond loopback the control
                  endpoints need the control token printed at start
  --allowed-host NAME
                  a host name the control endpoints and the page answer with any port,
                  besides HOST and the loopback names with the emulator's port
                  (repeatable): a proxy's, container's, machine's or port forward's
                  name; other names get 403 (pages of other sites)
  --state FILE    keep objects, tokens and mounts in FILE across restarts, sealed with
                  AES-256-GCM (key: SVC_EMULATOR_STATE_KEY, else FILE.key, created 0600)
  --load SNAPSHOT start from a snapshot (GET /_emulator/snapshot): every object, mount,
                  cluster and token it holds; it replaces what FILE held. Sealed with the
                  state key: give this emulator the same SVC_EMULATOR_STATE_KEY
  --flush-ms N    durability window: a write reaches FILE within N ms (default 1000);
                  SIGTERM, SIGINT and exit always write it
  --clusters N    secrets-service clusters to start, linked by performance replication
                  (default 1); cluster i > 0 gets its own port, tokens and storage
                  (FILE.cluster<i> with --state) and prints SVC_SECRETS_URL_<i> and
                  SVC_SECRETS_TOKEN_<i>
  --auto-advance-ms N
                  active runs move one status step every N ms (default ${COMMAND_PACE_MS});
                  0 stops them: step a run with POST /_emulator/runs/<id>/advance
  --help          show this text

Prints export lines for SVC_RUN_URL, SVC_RUN_TOKEN, SVC_SECRETS_URL and SVC_SECRETS_TOKEN.`;

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

const defaultIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

export class UsageError extends Error {}

export function parseArgs(argv: string[]): EmulatorOptions | "help" {
  const options: EmulatorOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].startsWith("--") && argv[i].includes("=") ? argv[i].split(/=(.*)/s) : [argv[i], undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === "") throw new UsageError(`${flag} needs a value`);
      return v;
    };
    // A whole number from min to max, else a usage error naming the range.
    const integer = (min: number, max: number) => {
      const v = value();
      if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new UsageError(`${flag} must be ${min}-${max}, got ${v}`);
      return Number(v);
    };
    switch (flag) {
      case "--help":
      case "-h":
        return "help";
      case "--port":
        options.port = integer(0, 65535);
        break;
      case "--host":
        options.host = value();
        break;
      case "--allowed-host": {
        const v = value();
        const bad = checkAllowedHost(v);
        if (bad !== undefined) throw new UsageError(bad);
        options.allowedHosts = [...(options.allowedHosts ?? []), v];
        break;
      }
      case "--state":
        options.statePath = value();
        break;
      case "--load":
        options.loadPath = value();
        break;
      case "--flush-ms":
        options.flushMs = integer(0, 3_600_000);
        break;
      case "--clusters":
        options.clusters = integer(1, MAX_CLUSTERS);
        break;
      case "--auto-advance-ms":
        options.autoAdvanceMs = integer(0, 3_600_000);
        break;
      default:
        throw new UsageError(`unknown argument ${argv[i]}`);
    }
  }
  return options;
}

/** Starts the emulator and prints how to reach it; undefined after --help. */
export async function main(argv: string[], io: CliIo = defaultIo): Promise<Emulator | undefined> {
  const options = parseArgs(argv);
  if (options === "help") {
    io.out(USAGE);
    return undefined;
  }
  const emulator = await startEmulator({ ...options, autoAdvanceMs: options.autoAdvanceMs ?? COMMAND_PACE_MS });
  io.out(`export SVC_RUN_URL=${emulator.runUrl}`);
  io.out(`export SVC_RUN_TOKEN=${emulator.tokens.runAdmin}`);
  io.out(`export SVC_SECRETS_URL=${emulator.secretsUrl}`);
  io.out(`export SVC_SECRETS_TOKEN=${emulator.tokens.secretsRoot}`);
  for (const c of emulator.clusters.slice(1)) {
    io.out(`export SVC_SECRETS_URL_${c.index}=${c.secretsUrl}`);
    io.out(`export SVC_SECRETS_TOKEN_${c.index}=${c.secretsToken}`);
  }
  if (emulator.controlToken !== undefined) {
    io.out(`export SVC_EMULATOR_CONTROL_TOKEN=${emulator.controlToken}`);
    io.out(`# control endpoints need the header x-emulator-control-token: $SVC_EMULATOR_CONTROL_TOKEN (listening beyond loopback)`);
  }
  io.out(
    `# pulumi-svc emulator on ${emulator.url} (control ${emulator.controlUrl}); organization ${emulator.organization}, ` +
      `workspace ${emulator.workspaceId}; other tokens: member ${emulator.tokens.runMember}, team ${emulator.tokens.runTeam}, ` +
      `organization ${emulator.tokens.runOrganization}, secrets user ${emulator.tokens.secretsUser}. Ctrl-C stops it.`,
  );
  const pace = options.autoAdvanceMs ?? COMMAND_PACE_MS;
  io.out(pace > 0
    ? `# runs move one status step every ${pace} ms (--auto-advance-ms 0 stops them)`
    : "# runs move only when stepped: POST /_emulator/runs/<id>/advance");
  return emulator;
}

function runAsCommand(): void {
  main(process.argv.slice(2)).then(
    (emulator) => {
      if (!emulator) return;
      const stop = () => {
        void emulator.close().then(() => process.exit(0));
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    },
    (err: unknown) => {
      defaultIo.err(`pulumi-svc-emulator: ${(err as Error).message}`);
      if (err instanceof UsageError) defaultIo.err(USAGE);
      process.exit(err instanceof UsageError ? 2 : 1);
    },
  );
}

if (require.main === module) runAsCommand();
