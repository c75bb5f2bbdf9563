import { describe, expect, it } from "vitest";

declare global {
  interface ImportMeta {
    /** Vite's glob import (the project's types do not include vite/client). */
    glob(
      pattern: string | string[],
      options: { query: "?raw"; import: "default"; eager: true },
    ): Record<string, string>;
  }
}

// Vite inlines the sources as strings at transform time, so this reads the files without a filesystem.
const clientSources = import.meta.glob("../../packages/client/src/**/*.ts", {
  query: "?raw",
  import: "default",
  eager: true,
});
const cliSources = import.meta.glob("../../packages/cli/src/**/*.ts", {
  query: "?raw",
  import: "default",
  eager: true,
});
// The Worker: everything in src/.
const workerSources = import.meta.glob("../../src/**/*.{ts,tsx}", {
  query: "?raw",
  import: "default",
  eager: true,
});
// `switchboard secret` derives keys exactly as the Worker does, so it loads that one module.
const purposeKeysSource = import.meta.glob("../../src/auth/purpose-keys.ts", {
  query: "?raw",
  import: "default",
  eager: true,
});

/** The `import … from` and `export … from` statements of a file. */
const importStatements = (source: string) =>
  source.match(/^(?:import|export)\s[^;]*?\sfrom\s+"[^"]+";/gms) ?? [];
const specifierOf = (statement: string) => /from\s+"([^"]+)"/.exec(statement)?.[1] ?? "";

/** The specifiers a file loads at run time: `import type` and `export type` are erased, so they are skipped. */
function runtimeImports(source: string): string[] {
  return importStatements(source)
    .filter((statement) => !/^(?:import|export)\s+type\s/.test(statement))
    .map(specifierOf);
}

describe("the client and CLI stay dependency-free at run time", () => {
  it("finds the sources", () => {
    expect(Object.keys(clientSources).length).toBeGreaterThan(3);
    expect(Object.keys(cliSources).length).toBeGreaterThan(3);
  });

  it("the client package imports only its own files, types included (it is published alone)", () => {
    for (const [file, source] of Object.entries(clientSources)) {
      // With the .ts extension, which the build rewrites to .js for plain Node ESM.
      for (const statement of importStatements(source))
        expect(specifierOf(statement), file).toMatch(/^\.\/[\w-]+\.ts$/);
    }
  });

  it("the Worker imports nothing from packages/ (the client, the CLI), types included", () => {
    expect(Object.keys(workerSources).length).toBeGreaterThan(100);
    for (const [file, source] of Object.entries(workerSources))
      for (const statement of importStatements(source))
        expect(specifierOf(statement), file).not.toMatch(/packages\//);
  });

  it("packages/cli imports only its own files, the client package's entry and the key derivation", () => {
    // Types included: what it knows of the Worker is what the client package says, and one shared module.
    for (const [file, source] of Object.entries(cliSources))
      for (const statement of importStatements(source))
        expect(specifierOf(statement), file).toMatch(
          /^(?:\.\/[\w-]+|\.\.\/\.\.\/client\/src\/index|\.\.\/\.\.\/\.\.\/src\/auth\/purpose-keys)$/,
        );
  });

  it("the key derivation the CLI shares with the Worker loads nothing itself", () => {
    const sources = Object.entries(purposeKeysSource);
    expect(sources).toHaveLength(1);
    for (const [file, source] of sources) expect(runtimeImports(source), file).toEqual([]);
  });
});
