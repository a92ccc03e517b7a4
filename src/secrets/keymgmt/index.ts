export {
  Key, type KeyArgs, type KeyType, type KeyVersion, type KeyInfo, type KeyRefArgs, type KeyRefInputs, type ListKeysArgs,
  type ListResult, KEY_TYPES, getKey, getKeyOutput, listKeys, listKeysOutput, rotateKey, rotateKeyOutput,
} from "./key";
export {
  KmsProvider, type KmsProviderArgs, type KmsProviderKind, type KmsProviderInfo, type KmsProviderRefArgs, KMS_PROVIDERS, KMS_CREDENTIALS,
  getKmsProvider, getKmsProviderOutput, listKmsProviders, listKmsProvidersOutput,
} from "./kmsProvider";
export {
  KeyDistribution, type KeyDistributionArgs, type KeyDistributionInfo, type Purpose, type Protection, PURPOSES, PROTECTIONS,
  type ListKeyDistributionsArgs, type GetKeyDistributionArgs,
  listKeyDistributions, listKeyDistributionsOutput, getKeyDistribution, getKeyDistributionOutput,
} from "./keyDistribution";
