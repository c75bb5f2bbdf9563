import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { TurnRequest } from "../../src/session/api";
import { stub } from "./sessions";

/** What a fault-injected requester saw: every call, and how many of them failed. */
export interface Faults {
  calls: number;
  failed: number;
}

/**
 * Makes the child object's completion deliveries fail `failures` times, as if the requester were
 * unreachable: the child instance's `env.SESSION` is wrapped so that `enqueueTurn` of a completion
 * (its dedupe key starts with `completion:`) on any stub throws. With `afterDelivering`, the call reaches the requester first and only the answer is lost.
 * The wrapper lives in the instance: evicting the child removes it.
 */
export async function failDeliveries(
  child: string,
  failures: number,
  afterDelivering = false,
): Promise<Faults> {
  const faults: Faults = { calls: 0, failed: 0 };
  await runInDurableObject(stub(child), (instance) => {
    const real = env.SESSION;
    const flakyStub = (name: string) => {
      const target = real.getByName(name);
      return new Proxy(target, {
        get(object, property) {
          if (property !== "enqueueTurn") {
            const value = Reflect.get(object, property);
            return typeof value === "function" ? value.bind(object) : value;
          }
          // The stub's own method, called as the wrapper was: same receiver, same arguments.
          const deliver = (args: unknown[]) => Reflect.apply(Reflect.get(object, property), object, args);
          return async (...args: unknown[]) => {
            const [request] = args as [TurnRequest];
            if (!request.dedupeKey?.startsWith("completion:")) return deliver(args);
            faults.calls++;
            if (faults.failed >= failures) return deliver(args);
            faults.failed++;
            if (afterDelivering) await deliver(args);
            throw new Error("requester unavailable");
          };
        },
      });
    };
    const namespace = new Proxy(real, {
      get(object, property) {
        if (property === "getByName") return flakyStub;
        const value = Reflect.get(object, property);
        return typeof value === "function" ? value.bind(object) : value;
      },
    });
    // `env` is protected on the class; the instance's own property is what its outbox delivery reads.
    const patched = new Proxy(Reflect.get(instance, "env") as object, {
      get: (object, property) => (property === "SESSION" ? namespace : Reflect.get(object, property)),
    });
    Object.defineProperty(instance, "env", { value: patched, configurable: true, writable: true });
  });
  return faults;
}
