/**
 * A throwaway PostgreSQL server on 127.0.0.1 for tests: initdb into a temp folder, a free port,
 * stopped and removed at the end. Debian's `postgresql` package provides the binaries; postgres
 * refuses to run as root, so as root the server runs as the `postgres` user (setpriv).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Client } from "pg";
import { afterAll, beforeAll } from "vitest";
import { onFreePort, startFailure } from "./ports";
import { needsReal } from "./real";

export interface Postgres {
  port: number;
  /** Superuser (schema changes): name and password. */
  admin: { username: string; password: string };
  /** A connection URL for `database` with the given credentials. */
  url(username: string, password: string, database?: string): string;
  /** Runs SQL as the superuser. */
  query<R = Record<string, unknown>>(sql: string, values?: unknown[]): Promise<R[]>;
  stop(): Promise<void>;
}

function binDir(): string | undefined {
  const base = "/usr/lib/postgresql";
  if (!fs.existsSync(base)) return undefined;
  const versions = fs.readdirSync(base).filter((v) => fs.existsSync(path.join(base, v, "bin", "initdb"))).sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(base, versions[0], "bin") : undefined;
}

/** Why no server can be had here, or undefined when one can. */
export function postgresUnavailable(): string | undefined {
  const bin = binDir();
  if (!bin) return "PostgreSQL is not installed (apt-get install -y postgresql)";
  if (process.getuid?.() === 0 && spawnSync("id", ["postgres"]).status !== 0) return "running as root and there is no postgres user to run the server as";
  return undefined;
}

/** The enclosing describe's tests need PostgreSQL (test/support/real.ts); true when it can be had. */
export function needsPostgres(): boolean {
  return needsReal("the PostgreSQL tests", postgresUnavailable());
}

/** `pick` gives the port to try first (a test of a taken port holds one); freePort by default. */
export async function startPostgres(pick?: () => Promise<number>): Promise<Postgres> {
  const bin = binDir();
  if (!bin) throw new Error(postgresUnavailable());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-pg-"));
  const data = path.join(dir, "data");
  const admin = { username: "svcadmin", password: `pw-${Math.random().toString(36).slice(2)}` };
  const pwfile = path.join(dir, "pw");
  fs.writeFileSync(pwfile, admin.password, { mode: 0o600 });
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]): [string, string[]] => (asRoot ? ["setpriv", ["--reuid=postgres", "--regid=postgres", "--init-groups", "--", cmd, ...args]] : [cmd, args]);
  if (asRoot) spawnSync("chown", ["-R", "postgres:postgres", dir]);
  const [initCmd, initArgs] = run(path.join(bin, "initdb"), ["-D", data, "-U", admin.username, `--pwfile=${pwfile}`, "--auth=scram-sha-256", "-E", "UTF8", "--no-sync"]);
  const init = spawnSync(initCmd, initArgs, { encoding: "utf8" });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  try {
    return await onFreePort((port) => serve(run(path.join(bin, "postgres"), ["-D", data, "-p", String(port), "-h", "127.0.0.1", "-k", dir, "-c", "fsync=off"]), port, dir, admin), pick);
  } catch (e) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/** The server of an initialised folder on `port`, once it answers; PortTaken when another process had the port. */
async function serve([pgCmd, pgArgs]: [string, string[]], port: number, dir: string, admin: Postgres["admin"]): Promise<Postgres> {
  const child: ChildProcess = spawn(pgCmd, pgArgs, { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr?.on("data", (c: Buffer) => (log += c.toString()));
  const exited = new Promise((r) => child.once("exit", r));
  const url = (username: string, password: string, database = "postgres") =>
    `postgresql://${encodeURIComponent(username)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  const query = async <R>(sql: string, values: unknown[] = []): Promise<R[]> => {
    const client = new Client({ connectionString: url(admin.username, admin.password) });
    await client.connect();
    try {
      return (await client.query(sql, values)).rows as R[];
    } finally {
      await client.end();
    }
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    // A server that could not listen has exited: whatever answers on the port is another's.
    if (child.exitCode !== null) {
      await exited;
      throw startFailure(`PostgreSQL did not start on port ${port}:\n${log}`, log);
    }
    try {
      await query("SELECT 1");
      break;
    } catch (e) {
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`PostgreSQL did not start: ${(e as Error).message}\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    port,
    admin,
    url,
    query,
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGINT"); // fast shutdown
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A throwaway PostgreSQL for the enclosing describe block, with a login role for the store's
 * connection string; stopped after the block. The block's tests need it (needsPostgres).
 */
export function usePostgres(role: { username: string; password: string }): () => Postgres {
  let pg: Postgres | undefined;
  if (!needsPostgres()) return () => pg!;
  beforeAll(async () => {
    pg = await startPostgres();
    await pg.query(`CREATE ROLE ${role.username} LOGIN PASSWORD '${role.password}'`);
  }, 60_000);
  afterAll(async () => {
    await pg?.stop();
  });
  return () => pg!;
}
