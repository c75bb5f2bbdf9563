// Types of start-credentials.mjs, for test/scripts/start-credentials.test.ts.
export declare const LOCAL_CREDENTIALS: {
  SWITCHBOARD_ADMIN_TOKEN: string;
  SWITCHBOARD_AGENT_TOKENS: string;
  SWITCHBOARD_SIGNING_KEY: string;
};

export type CredentialName = keyof typeof LOCAL_CREDENTIALS;

export interface StartVars {
  vars: Record<string, string>;
  defaulted: CredentialName[];
  configFromDevVars: boolean;
}

export declare function startVars(devVars: Record<string, string> | undefined): StartVars;

export declare function configurationLines(health: {
  ok: boolean;
  config: string;
  missingSecrets?: string[];
  error?: { message: string };
}): string[];

export declare function credentialLines(start: Pick<StartVars, "defaulted">, hasDevVars: boolean): string[];
