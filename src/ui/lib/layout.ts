/**
 * Automatic layout of a DAG's steps (dagre, left to right): each step a box, each `depends` an edge
 * from the dependency to the step. Dependencies on names that are not steps are left out.
 */
import dagre from '@dagrejs/dagre';
import type { StepFields } from '../api/types';

export const NODE_WIDTH = 184;
export const NODE_HEIGHT = 48;

export interface PlacedStep {
  name: string;
  /** Top-left corner. */
  x: number;
  y: number;
}

export interface StepLayout {
  nodes: PlacedStep[];
  edges: Array<{ from: string; to: string }>;
  width: number;
  height: number;
}

export function layoutSteps(steps: readonly StepFields[]): StepLayout {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 20, ranksep: 56, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  const names = new Set(steps.map((s) => s.name));
  for (const s of steps) g.setNode(s.name, { width: NODE_WIDTH, height: NODE_HEIGHT });
  const edges: StepLayout['edges'] = [];
  for (const s of steps) {
    for (const d of s.depends ?? []) {
      if (!names.has(d) || d === s.name) continue;
      g.setEdge(d, s.name);
      edges.push({ from: d, to: s.name });
    }
  }
  dagre.layout(g);
  const nodes = steps.map((s) => {
    const n = g.node(s.name);
    return { name: s.name, x: n.x - NODE_WIDTH / 2, y: n.y - NODE_HEIGHT / 2 };
  });
  const graph = g.graph();
  return { nodes, edges, width: graph.width ?? 0, height: graph.height ?? 0 };
}
