import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { callsArrived, fakeServicesUrl, newRecording } from "../support";

describe("fake services (test/support/fake-services-server.ts)", () => {
  it("is bound as a loopback URL", () => {
    expect(env.FAKE_SERVICES_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("is reachable from Worker code (inside a Durable Object), and records what it got", async () => {
    const recording = newRecording();
    const url = `${fakeServicesUrl()}/openai/echo/${recording.segment}/chat/completions`;
    const stub = env.SESSION.getByName(`fake-services-probe-${crypto.randomUUID()}`);
    const answer = await runInDurableObject(stub, async () => {
      const response = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Probe": "1" },
        body: JSON.stringify({ messages: [{ role: "user", content: "from the object" }] }),
      });
      return (await response.json()) as { choices: Array<{ message: { content: string } }> };
    });
    expect(answer.choices[0]?.message.content).toBe("from the object");
    expect(await recording.requests()).toEqual([
      expect.objectContaining({ method: "POST", headers: expect.objectContaining({ "x-probe": "1" }) }),
    ]);
  });

  it("answers 404 for an unknown scenario, and keeps recordings apart", async () => {
    const recording = newRecording();
    const response = await fetch(`${fakeServicesUrl()}/openai/nope/${recording.segment}/chat/completions`, {
      method: "POST",
      body: "{}",
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: "no scenario nope" });
    expect(await recording.requests()).toHaveLength(1);
    expect(await newRecording().requests()).toEqual([]);
  });

  it("signals the n-th request mentioning a marker once it arrives, with those requests, oldest first", async () => {
    const recording = newRecording();
    const post = (content: string) =>
      fetch(`${fakeServicesUrl()}/openai/echo/${recording.segment}/chat/completions`, {
        method: "POST",
        body: JSON.stringify({ messages: [{ role: "user", content }] }),
      });
    // Asked before anything arrived: an answer at the first match would hold one request, not two.
    const signal = callsArrived<{ messages: { content: string }[] }>(recording.segment.slice(4), 2, "wanted");
    for (const content of ["other 1", "wanted 1", "other 2", "wanted 2"]) await post(content);
    const arrived = await signal;
    expect(arrived.map((request) => request.json.messages[0]?.content)).toEqual(["wanted 1", "wanted 2"]);
    // Already there: answered at once.
    expect(await callsArrived(recording.segment.slice(4), 4)).toHaveLength(4);
  });
});
