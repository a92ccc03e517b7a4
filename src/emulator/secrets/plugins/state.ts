export const PLUGIN_TYPES = ["auth", "database", "secret"] as const;
export type PluginType = (typeof PLUGIN_TYPES)[number];

/** A registered (external) plugin; builtins are constants in catalogEntry.ts, not state. */
export interface Plugin {
  name: string;
  command: string;
  sha256: string;
  args: string[];
  /** Accepted and stored, not returned on read (the seed's read fields leave it out). */
  env: string[];
}

export type PluginState = Record<PluginType, Record<string, Plugin>>;

export const emptyPlugins = (): PluginState => ({ auth: {}, database: {}, secret: {} });
