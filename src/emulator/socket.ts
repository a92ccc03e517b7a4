import { Duplex } from "node:stream";
import type { Socket } from "node:net";
import { ListRewriter } from "./list-rewrite";

/**
 * Presents a raw TCP socket to the HTTP server with LIST request lines rewritten.
 * It has no native handle, so the HTTP server reads it through 'data' events, which is
 * what lets the rewriter sit in between.
 */
export class RewritingSocket extends Duplex {
  private readonly raw: Socket;

  constructor(raw: Socket) {
    super({ allowHalfOpen: true });
    this.raw = raw;
    const rewriter = new ListRewriter();
    raw.on("data", (chunk: Buffer) => {
      let more = true;
      for (const part of rewriter.push(chunk)) more = this.push(part) && more;
      if (!more) raw.pause();
    });
    raw.on("end", () => this.push(null));
    raw.on("timeout", () => this.emit("timeout"));
    raw.on("error", (err) => this.destroy(err));
    raw.on("close", () => this.destroy());
  }

  override _read(): void {
    this.raw.resume();
  }

  override _write(chunk: Buffer, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.raw.write(chunk, encoding, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.raw.end(() => callback());
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.raw.destroy();
    callback(error);
  }

  get remoteAddress(): string | undefined {
    return this.raw.remoteAddress;
  }

  get remotePort(): number | undefined {
    return this.raw.remotePort;
  }

  get localAddress(): string | undefined {
    return this.raw.localAddress;
  }

  get localPort(): number | undefined {
    return this.raw.localPort;
  }

  setTimeout(ms: number, callback?: () => void): this {
    this.raw.setTimeout(ms);
    if (callback) this.once("timeout", callback);
    return this;
  }

  setNoDelay(noDelay?: boolean): this {
    this.raw.setNoDelay(noDelay);
    return this;
  }

  setKeepAlive(enable?: boolean, delay?: number): this {
    this.raw.setKeepAlive(enable, delay);
    return this;
  }
}
