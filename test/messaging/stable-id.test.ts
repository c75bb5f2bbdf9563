import { describe, expect, it } from "vitest";
import { stableUuid } from "../../src/messaging/stable-id";

const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("stableUuid", () => {
  it("is a well-formed version-8 UUID, the same for the same parts", async () => {
    const first = await stableUuid("sessions_send", "agent:main:main", "key-1");
    expect(first).toMatch(UUID_V8);
    expect(await stableUuid("sessions_send", "agent:main:main", "key-1")).toBe(first);
  });

  it("never changes between releases: a repeat after a deploy must find the first run", async () => {
    // SHA-256 of the parts joined by NUL, first 16 bytes, version and variant bits set (RFC 9562).
    expect(await stableUuid("sessions_send", "agent:main:main", "key-1")).toBe(
      "a2aa18c9-167d-81a3-b6df-012988e15a44",
    );
  });

  it("differs when any part differs, including where one part ends and the next begins", async () => {
    const ids = await Promise.all([
      stableUuid("sessions_send", "agent:main:main", "key-1"),
      stableUuid("sessions_send", "agent:main:main", "key-2"),
      stableUuid("sessions_send", "agent:main:other", "key-1"),
      stableUuid("sessions_spawn", "agent:main:main", "key-1"),
      stableUuid("a", "bc"),
      stableUuid("ab", "c"),
      stableUuid("abc"),
    ]);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
