export * as transform from "./transform";
export * as keymgmt from "./keymgmt";
export * as identity from "./identity";
export * as plugins from "./plugins";
export * as mfa from "./mfa";
