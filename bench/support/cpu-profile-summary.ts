/**
 * Summarises a V8 CPU profile (`.cpuprofile`, e.g. one thread's of `DDNS_BENCH_NODE_ARGS="--cpu-prof
 * --cpu-prof-dir=DIR"`): share of the thread's busy time by function, self and inclusive (a function counted
 * once per sample however often it recurses), over the profile's last SECONDS only (the bench's rounds, not
 * the set-up before them); idle samples are left out of the shares. With CALLERS=regex, the call chains
 * (innermost first) above the first frame matching it instead, by time (decision 0133 found Fastify's
 * per-body `AsyncResource.bind` this way).
 *
 * Run: node dist/bench/support/cpu-profile-summary.js FILE [N]   env: SECONDS (default 13), CALLERS, DEPTH (8)
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

function frameName(f: CallFrame): string {
  const url = f.url.replace(/^file:\/\//, '');
  const short = url.includes('node_modules/')
    ? url.replace(/^.*node_modules\//, '')
    : url.includes('/dist/')
      ? url.slice(url.lastIndexOf('/dist/') + 6)
      : url;
  return `${f.functionName || '(anonymous)'} ${short || '(native)'}:${f.lineNumber + 1}`;
}

const percent = (part: number, whole: number) => ((100 * part) / whole).toFixed(1).padStart(5) + ' %';

function main() {
  const args = process.argv.slice(2);
  const file = args[0];
  if (!file) throw new Error('usage: cpu-profile-summary FILE [N]');
  const top = Number(args[1] ?? 30);
  const seconds = Number(process.env.SECONDS ?? 13);
  const callers = process.env.CALLERS ? new RegExp(process.env.CALLERS) : null;
  const depth = Number(process.env.DEPTH ?? 8);

  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const names = new Map(profile.nodes.map((n) => [n.id, frameName(n.callFrame)]));
  const stacks = new Map<number, string[]>();
  const stackOf = (id: number): string[] => {
    let stack = stacks.get(id);
    if (!stack) {
      const frames = new Set<string>();
      for (let x: number | undefined = id; x !== undefined; x = parentOf.get(x)) frames.add(names.get(x)!);
      stack = [...frames];
      stacks.set(id, stack);
    }
    return stack;
  };

  // Sample i is taken at the sum of the deltas up to it and lasts until the next one.
  const times: number[] = [];
  let t = profile.startTime;
  for (const d of profile.timeDeltas) times.push((t += d));
  const from = times[times.length - 1] - seconds * 1e6;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const chains = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  for (let i = 0; i + 1 < profile.samples.length; i++) {
    if (times[i] < from) continue;
    const id = profile.samples[i];
    const us = times[i + 1] - times[i];
    if (byId.get(id)!.callFrame.functionName === '(idle)') {
      idle += us;
      continue;
    }
    busy += us;
    self.set(names.get(id)!, (self.get(names.get(id)!) ?? 0) + us);
    for (const f of stackOf(id)) inclusive.set(f, (inclusive.get(f) ?? 0) + us);
    if (callers) {
      let x: number | undefined = id;
      while (x !== undefined && !callers.test(names.get(x)!)) x = parentOf.get(x);
      const chain: string[] = [];
      for (; x !== undefined && chain.length < depth; x = parentOf.get(x)) chain.push(names.get(x)!);
      if (chain.length) chains.set(chain.join('\n    < '), (chains.get(chain.join('\n    < ')) ?? 0) + us);
    }
  }
  const ranked = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top);
  console.log(`${file}: last ${seconds} s, busy ${(busy / 1e3).toFixed(0)} ms, idle ${(idle / 1e3).toFixed(0)} ms`);
  if (callers) {
    for (const [chain, us] of ranked(chains)) console.log(`${percent(us, busy)}  ${chain}`);
    return;
  }
  console.log('self (share of busy time):');
  for (const [f, us] of ranked(self)) console.log(`${percent(us, busy)}  ${f}`);
  console.log('inclusive:');
  for (const [f, us] of ranked(inclusive)) console.log(`${percent(us, busy)}  ${f}`);
}

main();
