// The servers the tests start on a port freePort() picked run again on another when a process took
// that port before they listened (test/support/ports.ts): each is started here with the first
// port it is given held by a listener, as a test running beside it could hold it.
import * as net from "node:net";
import { afterEach, describe, expect, test } from "vitest";
import { freePort, onFreePort, PortTaken } from "../support/ports";
import { needsPostgres, startPostgres } from "../support/postgres";
import { needsMoto, startMoto } from "../support/moto";

describe("onFreePort", () => {
  test("a start refused its port runs again on another, three tries in all", async () => {
    const tried: number[] = [];
    let next = 40000;
    const pick = async () => next++;
    const started = await onFreePort(async (port) => {
      tried.push(port);
      if (tried.length < 3) throw new PortTaken(`port ${port} taken`);
      return `up on ${port}`;
    }, pick);
    expect(started).toBe("up on 40002");
    expect(tried).toEqual([40000, 40001, 40002]);

    tried.length = 0;
    const third = onFreePort(async (port) => {
      tried.push(port);
      throw new PortTaken(`port ${port} taken`);
    }, pick);
    await expect(third).rejects.toThrow("port 40005 taken");
    expect(tried).toEqual([40003, 40004, 40005]);
  });

  test("any other failure is thrown at once", async () => {
    let tries = 0;
    await expect(onFreePort(async () => {
      tries++;
      throw new Error("initdb failed");
    })).rejects.toThrow("initdb failed");
    expect(tries).toBe(1);
  });
});

describe("a server whose first port is taken starts on another", () => {
  const listeners: net.Server[] = [];
  afterEach(async () => {
    await Promise.all(listeners.splice(0).map((s) => new Promise((r) => s.close(r))));
  });

  /** A port something listens on, and a pick that gives it first, then free ones. */
  async function held(): Promise<{ port: number; picked: number[]; pick: () => Promise<number> }> {
    const server = net.createServer((socket) => socket.destroy());
    listeners.push(server);
    const port = await new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port)));
    const picked: number[] = [];
    return { port, picked, pick: async () => { const p = picked.length === 0 ? port : await freePort(); picked.push(p); return p; } };
  }

  test.runIf(needsPostgres())("PostgreSQL", async () => {
    const h = await held();
    const pg = await startPostgres(h.pick);
    try {
      expect(h.picked).toHaveLength(2);
      expect(pg.port).toBe(h.picked[1]);
      expect(pg.port).not.toBe(h.port);
      expect(await pg.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
    } finally {
      await pg.stop();
    }
  }, 60_000);

  test.runIf(needsMoto())("moto", async () => {
    const h = await held();
    const moto = await startMoto(h.pick);
    try {
      expect(h.picked).toHaveLength(2);
      expect(moto.endpoint).toBe(`http://127.0.0.1:${h.picked[1]}`);
      await moto.createBucket("ports-taken");
      expect((await moto.objects("ports-taken")).size).toBe(0);
    } finally {
      await moto.stop();
    }
  }, 90_000);
});
