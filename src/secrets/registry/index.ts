export { AccessConfig, type AccessConfigArgs } from "./accessConfig";
export {
  Role, type RegistryRoleArgs, type RegistryRoleInfo, type RegistryRoleRefArgs, type RegistryCredentials, CLIENT_NEEDS_POLICY,
  getRegistryCredentials, getRegistryCredentialsOutput, getRegistryRole, getRegistryRoleOutput, listRegistryRoles, listRegistryRolesOutput,
} from "./role";
export { DEFAULT_REGISTRY_MOUNT } from "./routes";
