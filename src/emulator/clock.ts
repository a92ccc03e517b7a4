/**
 * One cluster's clock: the machine's, plus how far `POST /_emulator/clock/advance` moved it. The
 * run service's cool-offs and the secrets engines' lifetimes (directory loans and role passwords,
 * transform tokens) are on it, so a test passes time by saying so, never by sleeping through it.
 */
export class Clock {
  /** What tests advanced the clock by; `POST /_emulator/reset` sets it back to 0. */
  advancedMs = 0;

  /** Milliseconds since the epoch. */
  nowMs(): number {
    return Date.now() + this.advancedMs;
  }

  /** The time as an ISO 8601 string, as the services write it. */
  iso(): string {
    return new Date(this.nowMs()).toISOString();
  }
}
