// npm run docs writes what follows, to the end mark, from this folder's files (src/scripts/docs/blocks.ts): a new file's line comes last, a line moved by hand stays.
export { Key, type KeyArgs } from "./key";
export { KmsProvider, type KmsProviderArgs } from "./kmsProvider";
export { KeyDistribution, type KeyDistributionArgs } from "./keyDistribution";
// (end of what npm run docs writes)
export {
  type KeyType, type KeyVersion, type KeyInfo, type KeyRefArgs, type KeyRefInputs, type ListKeysArgs,
  type ListResult, KEY_TYPES, getKey, getKeyOutput, listKeys, listKeysOutput, rotateKey, rotateKeyOutput,
} from "./key";
export {
  type KmsProviderKind, type KmsProviderInfo, type KmsProviderRefArgs, KMS_PROVIDERS, KMS_CREDENTIALS,
  getKmsProvider, getKmsProviderOutput, listKmsProviders, listKmsProvidersOutput,
} from "./kmsProvider";
export {
  type KeyDistributionInfo, type Purpose, type Protection, PURPOSES, PROTECTIONS,
  type ListKeyDistributionsArgs, type GetKeyDistributionArgs,
  listKeyDistributions, listKeyDistributionsOutput, getKeyDistribution, getKeyDistributionOutput,
} from "./keyDistribution";
