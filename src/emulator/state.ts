/**
 * Shapes of everything the emulator keeps, and the defaults `reset` restores.
 * Each service has its own branch so new objects (runs, more engines) are new keys, not new files.
 */
import type { AssessmentResult, ConfigurationVersion, Run, WorkspaceSettings } from "./runs/state";
import { nullProto } from "./util";
import { seededIdentity, type IdentityState } from "./secrets/identity/state";
import { emptyMfa, type MfaState } from "./secrets/mfa/state";
import { emptyPlugins, type PluginState } from "./secrets/plugins/state";
import { emptyReplication, type ReplicationState } from "./secrets/replication/state";

export interface EmulatorTokens {
  runAdmin: string;
  runMember: string;
  runTeam: string;
  runOrganization: string;
  secretsRoot: string;
  secretsUser: string;
}

export interface Organization {
  name: string;
  createdAt: string;
}

export interface Workspace {
  id: string;
  name: string;
  organization: string;
  createdAt: string;
  /** Run-service behaviour (auto-apply, cost estimation, policy, assessments); absent = all off. */
  settings?: WorkspaceSettings;
}

export interface User {
  id: string;
  username: string;
  email: string;
}

export interface Team {
  id: string;
  name: string;
  organization: string;
}

export interface DeliveryResponse {
  url: string;
  body: string;
  code: string;
  headers: Record<string, string[]>;
  "sent-at": string;
  successful: boolean;
}

export type DestinationType = "generic" | "email" | "chat-a" | "chat-b";

/** The writable fields of a configuration after defaults and previous values are applied. */
export interface NcFields {
  name: string;
  destinationType: DestinationType;
  url: string | null;
  enabled: boolean;
  token: string | null;
  triggers: string[];
  userIds: string[];
}

export interface NotificationConfiguration extends NcFields {
  id: string;
  workspaceId: string;
  deliveryResponses: DeliveryResponse[];
  createdAt: string;
  updatedAt: string;
}

export interface RunState {
  organizations: Record<string, Organization>;
  workspaces: Record<string, Workspace>;
  users: Record<string, User>;
  teams: Record<string, Team>;
  notificationConfigurations: Record<string, NotificationConfiguration>;
  runs: Record<string, Run>;
  configurationVersions: Record<string, ConfigurationVersion>;
  /** Workspace id → its most recently created or used configuration version id. */
  latestConfigurationVersions: Record<string, string>;
  /** Workspace id → id of the run holding its lock (absent when unlocked). */
  workspaceLocks: Record<string, string>;
  /** Workspace id → its assessment results, oldest first. */
  assessmentResults: Record<string, AssessmentResult[]>;
}

/** An engine instance; `objects[kind][name]` so each object file owns one kind. */
export interface Mount {
  type: string;
  objects: Record<string, Record<string, unknown>>;
}

export interface SecretsState {
  mounts: Record<string, Mount>;
  /** Parts of the service at fixed paths, not mounts: `identity/` and `sys/plugins/`. */
  identity: IdentityState;
  mfa: MfaState;
  plugins: PluginState;
  /** This cluster's performance-replication role (`sys/replication/performance/`). */
  replication: ReplicationState;
}

export interface Data {
  run: RunState;
  secrets: SecretsState;
}

export const DEFAULT_ORGANIZATION = "example-org";
export const DEFAULT_WORKSPACE_ID = "ws-example00000001";
export const ADMIN_USER_ID = "usr-admin000000001";
export const MEMBER_USER_ID = "usr-member00000001";
export const DEPLOYERS_TEAM_ID = "team-deployers00001";
export const DEFAULT_CONFIGURATION_VERSION_ID = "cv-example00000001";
export const AUTOAPPLY_WORKSPACE_ID = "ws-autoapply000001";
export const AUTOAPPLY_CONFIGURATION_VERSION_ID = "cv-autoapply000001";

/** Engines mounted on a fresh emulator: mount path → engine type. */
export const DEFAULT_MOUNTS: Record<string, string> = { transform: "transform", keymgmt: "keymgmt", directory: "directory", registry: "registry" };

/** The defaults, with every map free of a prototype (see nullProto). */
export function seededData(at: string): Data {
  return nullProto<Data>({
    run: {
      organizations: { [DEFAULT_ORGANIZATION]: { name: DEFAULT_ORGANIZATION, createdAt: at } },
      workspaces: {
        [DEFAULT_WORKSPACE_ID]: { id: DEFAULT_WORKSPACE_ID, name: "example", organization: DEFAULT_ORGANIZATION, createdAt: at },
        [AUTOAPPLY_WORKSPACE_ID]: {
          id: AUTOAPPLY_WORKSPACE_ID,
          name: "autoapply",
          organization: DEFAULT_ORGANIZATION,
          createdAt: at,
          settings: { autoApply: true },
        },
      },
      users: {
        [ADMIN_USER_ID]: { id: ADMIN_USER_ID, username: "admin", email: "admin@example.com" },
        [MEMBER_USER_ID]: { id: MEMBER_USER_ID, username: "member", email: "member@example.com" },
      },
      teams: {
        [DEPLOYERS_TEAM_ID]: { id: DEPLOYERS_TEAM_ID, name: "deployers", organization: DEFAULT_ORGANIZATION },
      },
      notificationConfigurations: {},
      runs: {},
      configurationVersions: {
        [DEFAULT_CONFIGURATION_VERSION_ID]: seededCv(DEFAULT_CONFIGURATION_VERSION_ID, DEFAULT_WORKSPACE_ID, at),
        [AUTOAPPLY_CONFIGURATION_VERSION_ID]: seededCv(AUTOAPPLY_CONFIGURATION_VERSION_ID, AUTOAPPLY_WORKSPACE_ID, at),
      },
      latestConfigurationVersions: {
        [DEFAULT_WORKSPACE_ID]: DEFAULT_CONFIGURATION_VERSION_ID,
        [AUTOAPPLY_WORKSPACE_ID]: AUTOAPPLY_CONFIGURATION_VERSION_ID,
      },
      workspaceLocks: {},
      assessmentResults: {},
    },
    secrets: {
      mounts: Object.fromEntries(Object.entries(DEFAULT_MOUNTS).map(([path, type]) => [path, { type, objects: {} }])),
      identity: seededIdentity(),
      mfa: emptyMfa(),
      plugins: emptyPlugins(),
      replication: emptyReplication(),
    },
  });
}

function seededCv(id: string, workspaceId: string, at: string): ConfigurationVersion {
  return { id, workspaceId, speculative: false, createdAt: at, commitSha: null, branch: null, senderUsername: null };
}
