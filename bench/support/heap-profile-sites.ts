/**
 * Ranks the allocation sites of sampling heap profiles (`.heapprofile`, e.g. `bench/support/alloc-probe.ts`'s
 * with collected objects kept): bytes by the allocating function (self), by the nearest frame of the
 * service's own code on the allocating stack (a library's or Node's allocation charged to the call of ours
 * that made it), and inclusive by frame of ours. With UPDATES (the updates the profiles cover), per update.
 *
 * Run: node dist/bench/support/heap-profile-sites.js FILE... [N]   env: UPDATES
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  callFrame: CallFrame;
  selfSize: number;
  children: ProfileNode[];
}

/** The service's own compiled code: under some `dist/` and not a dependency. */
const ours = (f: CallFrame) => f.url.includes('/dist/') && !f.url.includes('node_modules');

function site(f: CallFrame): string {
  const url = f.url.replace(/^file:\/\//, '');
  const short = url.includes('/dist/')
    ? url.slice(url.lastIndexOf('/dist/') + 6)
    : url.replace(/^.*node_modules\//, '');
  return `${f.functionName || '(anonymous)'} ${short || '(native)'}:${f.lineNumber + 1}`;
}

function add(map: Map<string, number>, key: string, bytes: number) {
  map.set(key, (map.get(key) ?? 0) + bytes);
}

function main() {
  const args = process.argv.slice(2);
  const top = /^\d+$/.test(args[args.length - 1] ?? '') ? Number(args.pop()) : 25;
  const updates = Number(process.env.UPDATES ?? 0);
  const self = new Map<string, number>();
  const nearestOurs = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  const walk = (node: ProfileNode, stack: CallFrame[]) => {
    stack.push(node.callFrame);
    if (node.selfSize > 0) {
      total += node.selfSize;
      add(self, site(node.callFrame), node.selfSize);
      const mine = [...stack].reverse().find(ours);
      add(nearestOurs, mine ? site(mine) : '(no frame of ours)', node.selfSize);
      for (const key of new Set(stack.filter(ours).map(site))) add(inclusive, key, node.selfSize);
    }
    for (const child of node.children) walk(child, stack);
    stack.pop();
  };
  for (const file of args) walk((JSON.parse(readFileSync(file, 'utf8')) as { head: ProfileNode }).head, []);
  const unit = updates > 0 ? 'bytes per update' : 'KB';
  const scale = (bytes: number) => (updates > 0 ? bytes / updates : bytes / 1024);
  const print = (title: string, map: Map<string, number>) => {
    console.log(`\n${title} (${unit}, share of ${scale(total).toFixed(0)}):`);
    for (const [key, bytes] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top))
      console.log(
        `  ${scale(bytes).toFixed(0).padStart(8)}  ${((100 * bytes) / total).toFixed(1).padStart(5)} %  ${key}`,
      );
  };
  print('self, by allocating function', self);
  print('by the nearest frame of ours', nearestOurs);
  print('inclusive, frames of ours', inclusive);
}

main();
