// Types of start-output.mjs, for test/scripts/start-output.test.ts.
export declare function migrationLine(binding: string, wranglerOutput: string): string;

export declare function failureLines(
  step: string,
  error: unknown,
  where: { host: string; port: string },
): string[];
