export * as transform from "./transform";
export * as keymgmt from "./keymgmt";
export * as identity from "./identity";
export * as plugins from "./plugins";
export * as mfa from "./mfa";
export * as directory from "./directory";
export * as registry from "./registry";
