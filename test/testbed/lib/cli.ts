/**
 * `hack/testbed up|down|env|status|agent` (the bash wrapper builds the binaries and compiles this file).
 *   up     [--dir D] [--bin B] [--nodes N | --node name[:k=v,k=v]]... | --nodes-file F] [--json]
 *                                                                      start etcd, kube-apiserver, kcm, agents
 *   down   [--dir D] [--keep]                                          stop exactly what up started
 *   env    [--dir D]                                                   eval $(hack/testbed env): KUBECONFIG, PATH
 *   status [--dir D]                                                   processes, Nodes, Lease ages
 *   agent  [--dir D] --node name[:k=v,...]                             start one more agent process
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { NodeConfig } from '../agent/agent.js';
import { alive, down, readState, startAgent, up } from './testbed.js';

function parseNode(spec: string): NodeConfig {
  const [name = '', labels = ''] = spec.split(':', 2);
  const out: Record<string, string> = {};
  for (const kv of labels.split(',').filter(Boolean)) {
    const [k = '', v = ''] = kv.split('=', 2);
    out[k] = v;
  }
  return { name, labels: out };
}

/** --node name[:k=v,...] (repeatable), --nodes N (node-a, node-b, ... with svc.testbed/pool=a, b, ...), or
 * --nodes-file F (a JSON array of {name, labels, capacity, taints, podIP}). */
function nodeList(opts: Map<string, string[]>): NodeConfig[] | undefined {
  const file = opts.get('nodes-file')?.[0];
  if (file) return JSON.parse(fs.readFileSync(file, 'utf8')) as NodeConfig[];
  const n = opts.get('nodes')?.[0];
  if (n) {
    return Array.from({ length: Number(n) }, (_, i) => {
      const id = String.fromCharCode(97 + (i % 26)) + (i >= 26 ? String(Math.floor(i / 26)) : '');
      return { name: `node-${id}`, labels: { 'svc.testbed/pool': id } };
    });
  }
  return opts.get('node')?.map(parseNode);
}

function args(argv: string[]): { cmd: string; opts: Map<string, string[]> } {
  const [cmd = 'help', ...rest] = argv;
  const opts = new Map<string, string[]>();
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i] ?? '';
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${a}`);
    const [k, inline] = a.slice(2).split('=', 2) as [string, string | undefined];
    const flag = ['json', 'keep'].includes(k);
    const v = flag ? 'true' : (inline ?? rest[++i] ?? '');
    opts.set(k, [...(opts.get(k) ?? []), v]);
  }
  return { cmd, opts };
}

const defaultDir = process.env.SVC_TESTBED_DIR ?? `/tmp/svc-testbed-${process.getuid?.() ?? 0}`;

async function main(): Promise<number> {
  const { cmd, opts } = args(process.argv.slice(2));
  const dir = path.resolve(opts.get('dir')?.[0] ?? defaultDir);
  const err = (m: string): void => void process.stderr.write(`${m}\n`);
  switch (cmd) {
    case 'up': {
      const bin = opts.get('bin')?.[0] ?? process.env.SVC_TESTBED_BIN;
      if (!bin) throw new Error('--bin (or SVC_TESTBED_BIN) is required');
      const nodes = nodeList(opts);
      const s = await up({ dir, bin, ...(nodes ? { nodes } : {}), log: (m) => err(`[testbed] ${m}`) });
      if (opts.has('json')) process.stdout.write(`${JSON.stringify(s)}\n`);
      else err(`[testbed] ready in ${s.startSeconds}s; use it with:  eval $(hack/testbed env${opts.has('dir') ? ` --dir ${dir}` : ''})`);
      return 0;
    }
    case 'down': {
      const found = await down(dir, { keep: opts.has('keep') });
      err(found ? `[testbed] stopped ${dir}` : `[testbed] nothing up in ${dir}`);
      return 0;
    }
    case 'env': {
      const s = readState(dir);
      if (!s) {
        err(`[testbed] nothing up in ${dir}`);
        return 1;
      }
      process.stdout.write(`export KUBECONFIG=${s.kubeconfig}\nexport SVC_TEST_KUBECONFIG=${s.kubeconfig}\nexport PATH=${s.bin}:$PATH\n`);
      return 0;
    }
    case 'status': {
      const s = readState(dir);
      if (!s) {
        err(`[testbed] nothing up in ${dir}`);
        return 1;
      }
      const out = (l: string): void => void process.stdout.write(`${l}\n`);
      out(`test bed ${s.dir}: kubernetes ${s.versions.kubernetes}, etcd ${s.versions.etcd}, API server ${s.server}`);
      for (const p of [...s.control, ...s.agents]) out(`  ${alive(p.pid) ? 'running' : 'STOPPED'}  ${p.name} (pid ${p.pid}, log ${p.log})`);
      try {
        const leases = JSON.parse(execFileSync(path.join(s.bin, 'kubectl'), ['--kubeconfig', s.kubeconfig, 'get', 'leases', '-n', 'kube-node-lease', '-o', 'json'], { encoding: 'utf8' })) as { items: { metadata: { name: string }; spec: { renewTime?: string } }[] };
        for (const l of leases.items) {
          const age = l.spec.renewTime ? ((Date.now() - Date.parse(l.spec.renewTime)) / 1000).toFixed(1) : '?';
          out(`  node ${l.metadata.name}: lease renewed ${age}s ago`);
        }
      } catch (e) {
        out(`  API server not answering: ${(e as Error).message.split('\n')[0]}`);
        return 1;
      }
      return s.control.every((p) => alive(p.pid)) ? 0 : 1;
    }
    case 'agent': {
      const s = readState(dir);
      if (!s) throw new Error(`nothing up in ${dir}`);
      const nodes = (opts.get('node') ?? []).map(parseNode);
      if (nodes.length === 0) throw new Error('--node name[:k=v,...] is required');
      const a = await startAgent(s, nodes);
      err(`[testbed] ${a.name} pid ${a.pid}, log ${a.log}`);
      return 0;
    }
    default:
      err('usage: hack/testbed up|down|env|status|agent|build [--dir D] (see docs/testbed.md)');
      return cmd === 'help' ? 0 : 2;
  }
}

main().then(
  (code) => process.exit(code),
  (e: Error) => {
    process.stderr.write(`[testbed] ${e.message}\n`);
    process.exit(1);
  },
);
