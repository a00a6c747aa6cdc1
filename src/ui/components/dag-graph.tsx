/**
 * The graph of a DAG's steps (React Flow, laid out by dagre): each step a button coloured by its status;
 * clicking it (or Enter on it) selects the step. Read-only: nothing is dragged or connected.
 */
import { Controls, Handle, MarkerType, Position, ReactFlow, type Edge, type Node, type NodeProps } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useMemo } from 'react';
import type { StepFields } from '../api/types';
import { layoutSteps, NODE_HEIGHT, NODE_WIDTH } from '../lib/layout';
import { labelText, toneOf, type StatusLabel } from '../lib/status';

interface StepData extends Record<string, unknown> {
  name: string;
  status: StatusLabel | undefined;
  selected: boolean;
  onSelect?: (name: string) => void;
}
type StepNode = Node<StepData, 'step'>;

function StepNodeView({ data }: NodeProps<StepNode>) {
  return (
    <>
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <button
        type="button"
        className={`step-node tone-${toneOf(data.status)}${data.selected ? ' selected' : ''}`}
        data-step={data.name}
        data-status={data.status ?? 'not_started'}
        aria-pressed={data.selected}
        aria-label={`Step ${data.name}: ${labelText(data.status)}`}
        onClick={() => data.onSelect?.(data.name)}
      >
        <span className="step-node-name">{data.name}</span>
        <span className="step-node-status">{labelText(data.status)}</span>
      </button>
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </>
  );
}

const nodeTypes = { step: StepNodeView };
const noop = () => undefined;

export interface DagGraphProps {
  steps: readonly StepFields[];
  statuses: ReadonlyMap<string, StatusLabel>;
  selected?: string | undefined;
  onSelect?: (name: string) => void;
}

export function DagGraph({ steps, statuses, selected, onSelect }: DagGraphProps) {
  const layout = useMemo(() => layoutSteps(steps), [steps]);
  // New node objects on every status change: with their (fixed, CSS-set) size given as measured, React
  // Flow keeps showing them instead of hiding each one until it is measured again.
  const nodes = useMemo<StepNode[]>(() => layout.nodes.map((p) => ({
    id: p.name, type: 'step', position: { x: p.x, y: p.y }, measured: { width: NODE_WIDTH, height: NODE_HEIGHT },
    data: { name: p.name, status: statuses.get(p.name), selected: p.name === selected, ...(onSelect ? { onSelect } : {}) },
  })), [layout, statuses, selected, onSelect]);
  const edges = useMemo<Edge[]>(() => layout.edges.map((e) => ({
    id: `${e.from}->${e.to}`, source: e.from, target: e.to, type: 'smoothstep',
    animated: statuses.get(e.to) === 'running', markerEnd: { type: MarkerType.ArrowClosed },
  })), [layout, statuses]);
  const height = Math.min(520, Math.max(140, layout.height + 48));
  if (steps.length === 0) return <p className="muted">This DAG has no steps.</p>;
  return (
    <div className="graph" style={{ height }} role="group" aria-label="Graph of steps">
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        colorMode="system"
        fitView
        fitViewOptions={{ padding: 0.1, maxZoom: 1 }}
        minZoom={0.2}
        nodesDraggable={false}
        nodesConnectable={false}
        nodesFocusable={false}
        edgesFocusable={false}
        elementsSelectable={false}
        zoomOnScroll={false}
        preventScrolling={false}
        // React Flow lets clicks through to a node only when something handles them; the node's own
        // button does the selecting (so that Enter works the same), this only turns pointer events on.
        onNodeClick={noop}
      >
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
