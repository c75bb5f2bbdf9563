import { describe, expect, it } from "vitest";

declare global {
  interface ImportMeta {
    /** Vite's glob import (the project's types do not include vite/client). */
    glob(pattern: string, options: { query: "?raw"; import: "default"; eager: true }): Record<string, string>;
  }
}

// Vite inlines the sources as strings at transform time, so this reads the files without a filesystem.
const clientSources = import.meta.glob("../../src/client/**/*.ts", {
  query: "?raw",
  import: "default",
  eager: true,
});
const cliSources = import.meta.glob("../../src/cli/**/*.ts", {
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

/** The specifiers a file loads at run time: `import type` and `export type` are erased, so they are skipped. */
function runtimeImports(source: string): string[] {
  const statements = source.match(/^(?:import|export)\s[^;]*?\sfrom\s+"[^"]+";/gms) ?? [];
  return statements
    .filter((statement) => !/^(?:import|export)\s+type\s/.test(statement))
    .map((statement) => /from\s+"([^"]+)"/.exec(statement)?.[1] ?? "");
}

describe("the client and CLI stay dependency-free at run time", () => {
  it("finds the sources", () => {
    expect(Object.keys(clientSources).length).toBeGreaterThan(3);
    expect(Object.keys(cliSources).length).toBeGreaterThan(3);
  });

  it("src/client loads only its own files (types come from the schemas with import type)", () => {
    for (const [file, source] of Object.entries(clientSources)) {
      for (const specifier of runtimeImports(source)) expect(specifier, file).toMatch(/^\.\/[\w-]+$/);
    }
  });

  it("src/cli loads only its own files, the client and the key derivation", () => {
    for (const [file, source] of Object.entries(cliSources)) {
      for (const specifier of runtimeImports(source))
        expect(specifier, file).toMatch(/^(?:\.\/[\w-]+|\.\.\/client\/[\w-]+|\.\.\/auth\/purpose-keys)$/);
    }
  });

  it("the key derivation the CLI shares with the Worker loads nothing itself", () => {
    const sources = Object.entries(purposeKeysSource);
    expect(sources).toHaveLength(1);
    for (const [file, source] of sources) expect(runtimeImports(source), file).toEqual([]);
  });
});
