import { Duplex } from "node:stream";
import type { Socket } from "node:net";
import { ListRewriter } from "./listRewrite";

/**
 * Presents a raw TCP socket to the HTTP server with LIST request lines rewritten.
 * It has no native handle, so the HTTP server reads it through 'data' events, which is
 * what lets the rewriter sit in between.
 */
export class RewritingSocket extends Duplex {
  private readonly raw: Socket;

  /** `first`: bytes already read from `raw` that the HTTP server has not parsed (see listTakeover.ts). */
  constructor(raw: Socket, first?: Buffer) {
    // Strings (the HTTP server's head and most bodies) go to the raw socket as they are, uncopied.
    super({ allowHalfOpen: true, decodeStrings: false });
    this.raw = raw;
    const rewriter = new ListRewriter();
    if (first && first.length > 0) this.push(rewriter.pushOne(first));
    raw.on("data", (chunk: Buffer) => {
      const bytes = rewriter.pushOne(chunk);
      // One push per socket read: the parser runs once per read, as it does on a native socket.
      if (bytes.length > 0 && !this.push(bytes)) raw.pause();
    });
    raw.on("end", () => this.push(null));
    raw.on("timeout", () => this.emit("timeout"));
    raw.on("error", (err) => this.destroy(err));
    raw.on("close", () => this.destroy());
  }

  override _read(): void {
    this.raw.resume();
  }

  override _write(chunk: Buffer | string, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.raw.write(chunk, encoding, callback);
  }

  /**
   * The HTTP server corks the socket around a response, so its head and body arrive here together:
   * one write to the raw socket (one syscall, one TCP segment) instead of one per part.
   */
  override _writev(chunks: { chunk: Buffer | string; encoding: BufferEncoding }[], callback: (error?: Error | null) => void): void {
    if (chunks.length === 1) {
      this.raw.write(chunks[0].chunk, chunks[0].encoding, callback);
      return;
    }
    const buffers = chunks.map((c) => (typeof c.chunk === "string" ? Buffer.from(c.chunk, c.encoding) : c.chunk));
    this.raw.write(Buffer.concat(buffers), callback);
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
