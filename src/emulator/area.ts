import type { Incoming, Reply } from "./transport/http";
import type { Route } from "./transport/router";

/**
 * What an area of the emulated services (the run service, an engine or a fixed part of the secrets
 * service) gives the folders every area shares: its requests, its part of the state document, its
 * `/_emulator` rows and what the web page shows of it. `areas.ts` lists the areas; persistence,
 * control, ui and transport read them from the runtime (`rt.areas`) and import none of them, so a
 * new object or area touches no shared folder. `R` is the runtime a handler gets and `D` the stored
 * data (both in clusterRuntime.ts, whose runtime carries the areas: parameters keep this file below it).
 */
export interface Area<R, D> {
  /** The service whose requests it answers, under its path prefix. */
  service?: ServiceEntry<R>;
  /** Its part of the state document. */
  stored?: StoredPart;
  /** Its `/_emulator` rows. */
  controlRoutes?: readonly Route<R>[];
  /** Its kinds whose ids the service assigns, as `PUT /_emulator/next-ids` names them (control/nextIds.ts). */
  assignedIds?: readonly string[];
  /** What `/_emulator/reset` puts back besides the stored data: what it keeps live (timers, settings). */
  reset?(rt: R): void;
  /** Runs after every request, reads included, before the snapshot is due. */
  settle?(rt: R): void;
  /** What the web page shows of it. */
  page?: PagePart<R, D>;
}

/** A service the emulator answers: `/api/v2`, `/v1`. */
export interface ServiceEntry<R> {
  prefix: string;
  /** The method as the service reads it (a LIST sent as `GET ?list=true`); the request log and faults see this one. */
  method?(method: string, query: URLSearchParams): string;
  /** Answers a request whose path is relative to the prefix. */
  handle(rt: R, req: Incoming): Reply | Promise<Reply>;
  /** An error in the service's own body shape: a fault, the throttle, a handler that threw. */
  error(status: number, message: string): Reply;
}

/** An area's entries in the state document's `data.<service>`, and the tokens it answers to. */
export interface StoredPart {
  service: string;
  /** Its entries as a fresh emulator holds them and `reset` puts them back. */
  initial(at: string): object;
  /** Names of its tokens in the document's `tokens`; a random one is the prefix and 32 hex digits. */
  tokens?: { names: readonly string[]; prefix: string };
  /** What is wrong with its entries in a restored document (each already a map), if anything. */
  problem?(data: Record<string, unknown>): string | undefined;
}

/** What the web page shows of an area: boxes of its objects, and its own entries of the page's state. */
export interface PagePart<R, D> {
  /** Its boxes of the Objects section for one cluster's data. */
  groups?(data: D, cluster: number): PageGroup[];
  /** Its entries of the page's state besides the boxes (the run service's runs and clock). */
  sections?(rt: R): Record<string, unknown>;
  /** Kinds of its objects the page only counts, never lists nor opens (tokenized values). */
  sealed?: readonly string[];
}

/** One box of the page's Objects section: kind → name → object. */
export interface PageGroup {
  service: string;
  /** `run`, a mount path (`transform`) or a fixed part (`identity`). */
  group: string;
  /** A mount's engine. */
  type?: string;
  kinds: Record<string, unknown>;
  /** Kinds it holds that the page shows elsewhere (runs): left out of the box, still opened by their links. */
  unlisted?: readonly string[];
  sealed?: readonly string[];
}
