/** What identity keeps: entities and auth mounts (initial ones, or added by `/_emulator/identity`) and aliases. */

export interface Entity {
  id: string;
  name: string;
}

export interface AuthMount {
  accessor: string;
  /** Without the `auth/` prefix, with a trailing slash: `userpass/`. */
  path: string;
  type: string;
  /** Aliases of a local mount are not replicated; they report `local: true`. */
  local: boolean;
}

export interface EntityAlias {
  id: string;
  name: string;
  canonical_id: string;
  mount_accessor: string;
  custom_metadata: Record<string, string>;
  /** Set by the auth method at login, never by a write; always `{}` here. */
  metadata: Record<string, string>;
  creation_time: string;
  last_update_time: string;
}

export interface IdentityState {
  entities: Record<string, Entity>;
  authMounts: Record<string, AuthMount>;
  aliases: Record<string, EntityAlias>;
}

/** The initial entities and auth mounts, fixed so tests and examples can name them. */
export const INITIAL_ENTITIES: Entity[] = [
  { id: "ent-alice0000000001", name: "alice" },
  { id: "ent-bob000000000001", name: "bob" },
];

export const INITIAL_AUTH_MOUNTS: AuthMount[] = [
  { accessor: "auth_userpass_1234abcd", path: "userpass/", type: "userpass", local: false },
  { accessor: "auth_approle_5678abcd", path: "approle/", type: "approle", local: false },
];

export function initialIdentity(): IdentityState {
  return {
    entities: Object.fromEntries(INITIAL_ENTITIES.map((e) => [e.id, { ...e }])),
    authMounts: Object.fromEntries(INITIAL_AUTH_MOUNTS.map((m) => [m.accessor, { ...m }])),
    aliases: {},
  };
}
