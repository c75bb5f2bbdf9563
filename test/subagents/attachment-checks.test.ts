import { describe, expect, it } from "vitest";
import { toolWithConfig, workerConfigWith } from "../support";
import { expectRefused, requester, spawn } from "../support/subagents";

describe("sessions_spawn attachment checks (limits: 3 files, 64 bytes each, 128 in all)", () => {
  const file = (name: string, content: string, encoding?: "utf8" | "base64") => ({
    name,
    content,
    ...(encoding ? { encoding } : {}),
  });

  it("disabled attachments are an error naming the setting", async () => {
    const r = await requester("main", "att-off");
    const config = workerConfigWith((document) => {
      document.tools.sessions_spawn.attachments.enabled = false;
    });
    expect(
      await toolWithConfig(config, "sessions_spawn", r, { task: "t", attachments: [file("a.txt", "x")] }),
    ).toEqual({
      status: "error",
      error: "attachments are disabled; set tools.sessions_spawn.attachments.enabled=true",
    });
    // Without attachments the same configuration spawns.
    const plain = await toolWithConfig(config, "sessions_spawn", r, { task: "t" });
    expect(plain.status).toBe("accepted");
    expect(plain.attachments).toBeUndefined();
  });

  it("too many files, a file over its limit, and the total over its limit are errors", async () => {
    const r = await requester("main", "att-limits");
    const four = ["a", "b", "c", "d"].map((name) => file(name, "x"));
    await expectRefused(
      r,
      await spawn(r, { task: "t", attachments: four }),
      "error",
      "too many attachments: 4 > 3",
    );
    await expectRefused(
      r,
      await spawn(r, { task: "t", attachments: [file("ok.txt", "x"), file("big.txt", "x".repeat(65))] }),
      "error",
      'attachment "big.txt" is 65 bytes, over the 64-byte limit',
    );
    // Bytes, not characters: 22 three-byte characters are 66 bytes.
    await expectRefused(
      r,
      await spawn(r, { task: "t", attachments: [file("wide.txt", "€".repeat(22))] }),
      "error",
      'attachment "wide.txt" is 66 bytes, over the 64-byte limit',
    );
    // The decoded size counts for base64: 88 characters decode to 66 bytes.
    await expectRefused(
      r,
      await spawn(r, { task: "t", attachments: [file("b64.bin", "A".repeat(88), "base64")] }),
      "error",
      'attachment "b64.bin" is 66 bytes, over the 64-byte limit',
    );
    const sixtyFour = "x".repeat(64);
    await expectRefused(
      r,
      await spawn(r, {
        task: "t",
        attachments: [file("1", sixtyFour), file("2", sixtyFour), file("3", "x")],
      }),
      "error",
      "attachments total over the 128-byte limit",
    );
    // Exactly at both limits is fine.
    const atLimit = await spawn(r, { task: "t", attachments: [file("1", sixtyFour), file("2", sixtyFour)] });
    expect(atLimit.attachments).toMatchObject({ count: 2, totalBytes: 128 });
  });

  it("at most 50 files whatever the configuration says", async () => {
    const r = await requester("main", "att-50");
    const config = workerConfigWith((document) => {
      Object.assign(document.tools.sessions_spawn.attachments, { maxFiles: 100, maxTotalBytes: 10_000 });
    });
    const many = Array.from({ length: 51 }, (_, i) => file(`f${i}`, "x"));
    expect(await toolWithConfig(config, "sessions_spawn", r, { task: "t", attachments: many })).toEqual({
      status: "error",
      error: "too many attachments: 51 > 50",
    });
    const fifty = await toolWithConfig(config, "sessions_spawn", r, {
      task: "t",
      attachments: many.slice(0, 50),
    });
    expect(fifty.attachments).toMatchObject({ count: 50, totalBytes: 50 });
  });

  it("strict base64: length, alphabet and padding", async () => {
    const r = await requester("main", "att-b64");
    for (const content of ["QUJD=", "QUJ", "QU$D", "Q===", "QU=D", "QUJD\n", "QUJD QUJD"]) {
      await expectRefused(
        r,
        await spawn(r, {
          task: "t",
          attachments: [file("ok.txt", "fine"), file("x.bin", content, "base64")],
        }),
        "error",
        "attachments[1].content is not valid base64",
      );
    }
    const good = await spawn(r, { task: "t", attachments: [file("x.bin", "QUJDRA==", "base64")] });
    expect(good.attachments?.files).toEqual([{ name: "x.bin", bytes: 4, sha256: expect.any(String) }]);
  });

  it("unsafe names are errors: separators, NUL, control characters, . and ..", async () => {
    const r = await requester("main", "att-names");
    for (const name of ["a/b", "a\\b", "nul\u0000", "tab\tname", "del\u007f", "c1\u0085", ".", "..", ""]) {
      await expectRefused(
        r,
        await spawn(r, { task: "t", attachments: [file(name, "x")] }),
        "error",
        "attachments[0].name is not a safe file name",
      );
    }
    const fine = await spawn(r, {
      task: "t",
      attachments: [file(".hidden", "x"), file("résumé v2.txt", "y")],
    });
    expect(fine.attachments?.files.map((each) => each.name)).toEqual([".hidden", "résumé v2.txt"]);
  });

  it("duplicate names are an error", async () => {
    const r = await requester("main", "att-dup");
    await expectRefused(
      r,
      await spawn(r, {
        task: "t",
        attachments: [file("a.txt", "x"), file("b.txt", "y"), file("a.txt", "z")],
      }),
      "error",
      'duplicate attachment name "a.txt"',
    );
  });
});
