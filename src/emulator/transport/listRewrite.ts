/**
 * Node's HTTP parser rejects the `LIST` method, which the secrets service uses. This scanner
 * walks the raw byte stream request by request (heads, Content-Length and chunked bodies) and
 * rewrites `LIST <target>` to `GET <target with list=true>` before the parser sees it. Bodies
 * are passed through untouched, so keep-alive and pipelining keep their framing.
 */

const HEAD_END = Buffer.from("\r\n\r\n");
const CRLF = Buffer.from("\r\n");
const MAX_HEAD = 64 * 1024;
const MAX_LINE = 8 * 1024;
const EMPTY = Buffer.alloc(0);
/** A header line that can change how the bytes after the head are framed (optional whitespace before the colon is tolerated). */
const FRAMING = /\r\n[ \t]*(content-length|transfer-encoding|upgrade)[ \t]*:/i;

type Mode = "head" | "fixed" | "chunk-size" | "chunk-data" | "trailer" | "raw";

export class ListRewriter {
  private mode: Mode = "head";
  private pending: Buffer = EMPTY;
  private remaining = 0;

  private rewrote = false;

  /**
   * Feeds bytes from the socket; returns the bytes to hand to the HTTP parser as one buffer, the
   * chunk itself (no copy) unless a LIST line was rewritten or bytes were held from the last chunk.
   */
  pushOne(chunk: Buffer): Buffer {
    const held = this.pending.length > 0;
    this.rewrote = false;
    const parts = this.push(chunk);
    if (!held && !this.rewrote) return this.pending.length > 0 ? chunk.subarray(0, chunk.length - this.pending.length) : chunk;
    return parts.length === 1 ? parts[0] : Buffer.concat(parts);
  }

  /** Feeds bytes from the socket; returns the bytes to hand to the HTTP parser. */
  push(chunk: Buffer): Buffer[] {
    const out: Buffer[] = [];
    let buf = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = EMPTY;
    while (buf.length > 0) {
      switch (this.mode) {
        case "raw":
          out.push(buf);
          return out;
        case "head": {
          // Stray CRLFs between requests are legal; pass them through before looking for a head.
          let skip = 0;
          while (skip + 1 < buf.length && buf[skip] === 0x0d && buf[skip + 1] === 0x0a) skip += 2;
          if (skip > 0) {
            out.push(buf.subarray(0, skip));
            buf = buf.subarray(skip);
            continue;
          }
          const end = buf.indexOf(HEAD_END);
          if (end < 0) return this.wait(buf, MAX_HEAD, out);
          out.push(this.head(buf.subarray(0, end + 4)));
          buf = buf.subarray(end + 4);
          break;
        }
        case "fixed":
        case "chunk-data": {
          const n = Math.min(this.remaining, buf.length);
          out.push(buf.subarray(0, n));
          buf = buf.subarray(n);
          this.remaining -= n;
          if (this.remaining === 0) this.mode = this.mode === "fixed" ? "head" : "chunk-size";
          break;
        }
        case "chunk-size":
        case "trailer": {
          const eol = buf.indexOf(CRLF);
          if (eol < 0) return this.wait(buf, MAX_LINE, out);
          const line = buf.subarray(0, eol).toString("latin1");
          out.push(buf.subarray(0, eol + 2));
          buf = buf.subarray(eol + 2);
          if (this.mode === "trailer") {
            if (line === "") this.mode = "head";
          } else {
            this.chunkSize(line);
          }
          break;
        }
      }
    }
    return out;
  }

  /** Keeps an incomplete head or line for the next chunk; oversized ones are the parser's to reject. */
  private wait(buf: Buffer, limit: number, out: Buffer[]): Buffer[] {
    if (buf.length > limit) {
      this.mode = "raw";
      out.push(buf);
    } else {
      this.pending = Buffer.from(buf);
    }
    return out;
  }

  private chunkSize(line: string): void {
    const hex = line.split(";")[0].trim();
    if (!/^[0-9a-fA-F]{1,15}$/.test(hex)) {
      this.mode = "raw";
      return;
    }
    const size = parseInt(hex, 16);
    if (size === 0) {
      this.mode = "trailer";
    } else {
      this.mode = "chunk-data";
      this.remaining = size + 2;
    }
  }

  /** Sets the framing mode for what follows the head; returns the head, rewritten only for LIST. */
  private head(raw: Buffer): Buffer {
    const text = raw.toString("latin1");
    // Most heads (GETs without a body) carry no framing header: one scan instead of a per-line parse.
    if (FRAMING.test(text)) this.framing(text);
    else this.mode = text.startsWith("CONNECT ") ? "raw" : "head";
    if (!text.startsWith("LIST ")) return raw;
    const eol = text.indexOf("\r\n");
    const [method, target, version] = text.slice(0, eol).split(" ");
    if (method !== "LIST" || target === undefined || version === undefined) return raw;
    this.rewrote = true;
    const rewritten = `GET ${target}${target.includes("?") ? "&" : "?"}list=true ${version}`;
    return Buffer.from(rewritten + text.slice(eol), "latin1");
  }

  private framing(text: string): void {
    const lines = text.split("\r\n");
    let chunked = false;
    let length: number | undefined;
    let upgrade = lines[0].startsWith("CONNECT ");
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i];
      const colon = line.indexOf(":");
      if (colon < 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === "transfer-encoding" && /(^|,)\s*chunked\s*$/i.test(value)) chunked = true;
      else if (name === "content-length") length = /^\d+$/.test(value) ? Number(value) : NaN;
      else if (name === "upgrade") upgrade = true;
    }
    if (upgrade || (length !== undefined && Number.isNaN(length))) this.mode = "raw";
    else if (chunked) this.mode = "chunk-size";
    else if (length !== undefined && length > 0) {
      this.mode = "fixed";
      this.remaining = length;
    } else this.mode = "head";
  }
}
