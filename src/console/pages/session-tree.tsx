import type { TreeNode } from "../../index-db/tree";
import { displayKey, type KeyOptions } from "../../keys";
import { clip, Empty, KeyText, Status, sessionHref, Tokens, Took } from "../ui";

/**
 * Running as `subagents` counts it: a child with no ended run yet is active, whatever else its index
 * row says, so the console offers steer and kill exactly when the tool would act on it.
 */
const isRunning = (node: TreeNode) => node.status === undefined || node.status === "running";

// The task as a reminder of what a child is for; the child's own page has it in full.
const MAX_TASK_CHARS = 160;

interface TreeProps {
  nodes: TreeNode[];
  keyOptions: KeyOptions;
}

/** The controls of a running child: sent as its parent (the requester `subagents` acts for). */
function Controls({ node, name }: { node: TreeNode; name: string }) {
  const api = "/v1/tools/subagents";
  return (
    <div class="controls">
      <form class="steer" data-api={api} data-session={node.spawnedBy} data-reset data-success="Steered.">
        <input type="hidden" name="action" value="steer" />
        <input type="hidden" name="target" value={node.sessionKey} />
        <label>
          New instruction for {name} <textarea name="message" rows={2} maxlength={4000} required />
        </label>
        <button type="submit">Steer</button>
      </form>
      <form
        class="kill"
        data-api={api}
        data-session={node.spawnedBy}
        data-confirm={`Kill ${name} and every sub-agent it spawned?`}
        data-success="Killed."
      >
        <input type="hidden" name="action" value="kill" />
        <input type="hidden" name="target" value={node.sessionKey} />
        <button type="submit">Kill</button>
      </form>
    </div>
  );
}

function Branch({
  node,
  childrenOf,
  keyOptions,
}: {
  node: TreeNode;
  childrenOf: Map<string, TreeNode[]>;
  keyOptions: KeyOptions;
}) {
  const running = isRunning(node);
  const name = displayKey(node.sessionKey, keyOptions);
  const task = node.task && clip(node.task, MAX_TASK_CHARS);
  const children = childrenOf.get(node.sessionKey) ?? [];
  return (
    <details data-key={node.sessionKey} open={running}>
      <summary>
        <a href={sessionHref(node.sessionKey)}>
          <KeyText value={name} />
        </a>
        {node.label ? (
          <>
            {" "}
            <span class="label">{node.label}</span>
          </>
        ) : null}{" "}
        <Status value={node.status ?? "running"} />{" "}
        <Took from={node.startedAt} to={running ? undefined : node.endedAt} />{" "}
        <Tokens count={node.totalTokens} />
      </summary>
      {task ? <p class="task">{task}</p> : null}
      {running ? <Controls node={node} name={node.label ?? name} /> : null}
      {children.length > 0 ? (
        <div class="subtree">
          {children.map((child) => (
            <Branch node={child} childrenOf={childrenOf} keyOptions={keyOptions} />
          ))}
        </div>
      ) : null}
    </details>
  );
}

/**
 * The sub-agents of `rootKey`, each nested under the one that spawned it. Each node appears once, under
 * the first parent listed, so a cyclic chain in the index cannot loop the rendering.
 */
export function SessionTree({ rootKey, nodes, keyOptions }: TreeProps & { rootKey: string }) {
  const childrenOf = new Map<string, TreeNode[]>();
  const placed = new Set<string>([rootKey]);
  for (const node of nodes) {
    if (placed.has(node.sessionKey)) continue;
    placed.add(node.sessionKey);
    childrenOf.set(node.spawnedBy, [...(childrenOf.get(node.spawnedBy) ?? []), node]);
  }
  const top = childrenOf.get(rootKey) ?? [];
  if (top.length === 0) return <Empty>No sub-agents.</Empty>;
  return (
    <div class="tree">
      {top.map((node) => (
        <Branch node={node} childrenOf={childrenOf} keyOptions={keyOptions} />
      ))}
    </div>
  );
}
