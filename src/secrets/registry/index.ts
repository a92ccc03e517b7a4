// npm run docs writes what follows, to the end mark, from this folder's files (src/scripts/docs/blocks.ts): a new file's line comes last, a line moved by hand stays.
export { AccessConfig, type AccessConfigArgs } from "./accessConfig";
export { Role, type RegistryRoleArgs } from "./role";
// (end of what npm run docs writes)
export {
  type RegistryRoleInfo, type RegistryRoleRefArgs, type RegistryCredentials, CLIENT_NEEDS_POLICY,
  getRegistryCredentials, getRegistryCredentialsOutput, getRegistryRole, getRegistryRoleOutput, listRegistryRoles, listRegistryRolesOutput,
} from "./role";
export { DEFAULT_REGISTRY_MOUNT } from "./routes";
