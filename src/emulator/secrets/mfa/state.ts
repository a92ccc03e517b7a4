export interface DualFactorMethod {
  id: string;
  username_format: string;
  secret_key: string;
  integration_key: string;
  api_hostname: string;
  /** Written as `push_info`, read as `pushinfo`. */
  push_info: string;
  use_passcode: boolean;
}

/** Login enforcements exist only to guard deletion; they are added through `/_emulator/login-enforcements`. */
export interface LoginEnforcement {
  name: string;
  methodIds: string[];
}

export interface MfaState {
  dualfactor: Record<string, DualFactorMethod>;
  loginEnforcements: Record<string, LoginEnforcement>;
}

export const emptyMfa = (): MfaState => ({ dualfactor: {}, loginEnforcements: {} });
