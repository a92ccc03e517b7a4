// A webhook receiver for run-service notifications: it checks the X-Svc-Notification-Signature
// header against the configuration's token, validates the body, and hands typed payloads on.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import * as svc from "pulumi-svc";

export type Accepted =
  | { kind: "run"; payload: svc.runs.RunNotificationPayload }
  | { kind: "assessment"; payload: svc.runs.AssessmentNotificationPayload }
  | { kind: "verification"; payload: svc.runs.VerificationPayload };

export interface ReceiverOptions {
  /** The `token` of the notification configuration(s) that send here. */
  token: string;
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Called with each notification that is signed and valid. */
  onNotification(n: Accepted): void | Promise<void>;
  /** Called with each request that was refused, and why. */
  onRefused?(reason: string, status: number): void;
  /** Largest body accepted, default 1 MiB. */
  maxBodyBytes?: number;
}

export interface Receiver {
  url: string;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= limit) chunks.push(c);
    });
    req.on("end", () => resolve(size <= limit ? Buffer.concat(chunks) : undefined));
    req.on("error", reject);
  });
}

export async function startReceiver(o: ReceiverOptions): Promise<Receiver> {
  const refuse = (res: ServerResponse, status: number, reason: string) => {
    o.onRefused?.(reason, status);
    res.writeHead(status, { "content-type": "text/plain" }).end(`${reason}\n`);
  };
  const server: Server = createServer(async (req, res) => {
    try {
      if (req.method !== "POST") return refuse(res, 405, "only POST");
      // The signature covers the exact bytes sent: verify before parsing anything.
      const raw = await readBody(req, o.maxBodyBytes ?? 1024 * 1024);
      if (raw === undefined) return refuse(res, 413, "body too large");
      const signature = req.headers[svc.runs.SIGNATURE_HEADER.toLowerCase()];
      if (!svc.runs.verifyNotificationSignature(raw, signature, o.token)) return refuse(res, 401, "bad or missing signature");
      const parsed = svc.runs.parseNotification(raw);
      if (!parsed.ok) return refuse(res, 400, `invalid notification: ${parsed.problems.join("; ")}`);
      await o.onNotification({ kind: parsed.kind, payload: parsed.payload } as Accepted);
      res.writeHead(204).end();
    } catch (e) {
      refuse(res, 500, `receiver failed: ${(e as Error).message}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(o.port ?? 0, o.host ?? "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${o.host ?? "127.0.0.1"}:${port}/notifications`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
