import { ZoneIndex, type ZoneDefinition } from './zone-index';
import { applyIndexBatch, IndexChangeLog, indexSnapshot } from './index-replica';
import { generateKey } from '../dnssec/keys';
import { zoneSigning } from '../dnssec/zone-signing';
import { servedKey } from '../dnssec/testing/served-key';

const def = (name: string, serial: number, account: string | null = null): ZoneDefinition => ({
  name,
  ownerAccountId: account,
  soa: { mname: 'ns.example.net', rname: `h.${name}`, serial, refresh: 1, retry: 1, expire: 1, minimum: 60 },
  ttl: 3600,
  nameservers: ['ns.example.net'],
});

function signingFor(zone: string) {
  const key = generateKey(13);
  const signer = servedKey(key);
  return zoneSigning(zone, [signer], { inception: 0, expiration: 2 ** 31 }, { kind: 'none' }, 3600);
}

const NAMES = ['', 'a', 'b', 'a.b', 'x.a.b', 'c', '*.c', 'd.c', 'sub', 'ns.sub', 'deep.x.y', 'nope', 'q.nope.c'];
const TYPES = ['A', 'AAAA', 'TXT', 'NS', 'SOA', 'DNSKEY', 'NSEC', 'ANY', 'MX'];

/** Every answer the index gives for these names and types, DO=0 and DO=1, with attribution: one line each. */
function view(index: ZoneIndex, zones: string[]): string[] {
  const out: string[] = [];
  for (const zone of zones) {
    out.push(`${zone} serial ${index.zoneVersion(zone)?.serial} signed ${index.isSigned(zone)}`);
    for (const n of NAMES) {
      const fqdn = n ? `${n}.${zone}` : zone;
      for (const type of TYPES)
        for (const dnssec of [false, true])
          out.push(`${fqdn} ${type} ${dnssec}: ${JSON.stringify(index.lookup(fqdn, type, dnssec))}`);
    }
  }
  return out;
}

/** The first answer that differs (a readable failure), or null. */
const firstDifference = (a: string[], b: string[]) => a.find((line, i) => line !== b[i]) ?? null;

/** The leader's changes installed in each replica, as a DNS thread does after a turn of its loop. */
function ship(log: IndexChangeLog, replicas: ZoneIndex[]): void {
  const batch = log.drain();
  if (batch) for (const r of replicas) applyIndexBatch(r, batch.slice(0));
}

describe('index replicas (one fold, several DNS threads)', () => {
  it('answer as the leader through random changes, signing and unsigning, by batches and from a snapshot', async () => {
    const leader = new ZoneIndex();
    const log = new IndexChangeLog(leader);
    const replica = new ZoneIndex();
    leader.putZone(def('plain.test', 1));
    leader.putZone(def('signed.test', 1, '7'));
    await leader.setSigning('signed.test', signingFor('signed.test'));
    ship(log, [replica]);
    let seed = 11;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    for (let step = 0; step < 400; step++) {
      const zone = rnd(2) === 0 ? 'plain.test' : 'signed.test';
      const name = NAMES[rnd(NAMES.length - 2)];
      const type = ['A', 'TXT', 'NS', 'AAAA'][rnd(4)];
      if (rnd(3) === 0) leader.removeRRset(zone, name, type);
      else {
        const records =
          type === 'A'
            ? [`192.0.2.${rnd(250) + 1}`]
            : type === 'AAAA'
              ? ['2001:db8::1']
              : type === 'TXT'
                ? [`"t${rnd(9)}"`]
                : ['ns.example.org.'];
        const owner = rnd(2) === 0 ? { accountId: String(rnd(3)), domain: `${name || 'apex'}.${zone}` } : undefined;
        try {
          leader.setRRset(zone, name, type, 60, records, owner);
        } catch {
          // A CNAME-like conflict or a name the index refuses: the leader's index is unchanged.
        }
      }
      if (rnd(20) === 0) leader.putZone(def(zone, step + 2, zone === 'signed.test' ? '7' : null));
      if (rnd(5) === 0) ship(log, [replica]);
    }
    ship(log, [replica]);
    const zones = ['plain.test', 'signed.test'];
    expect(firstDifference(view(replica, zones), view(leader, zones))).toBeNull();

    const late = new ZoneIndex();
    applyIndexBatch(late, indexSnapshot(leader));
    expect(firstDifference(view(late, zones), view(leader, zones))).toBeNull();
    expect(late.contents('signed.test')!.rrsets.length).toBe(leader.contents('signed.test')!.rrsets.length);

    // Re-signed a slice at a time: each turn's changes shipped as they come.
    const signing = leader.setSigning('signed.test', signingFor('signed.test'), 2);
    const shipping = setInterval(() => ship(log, [replica, late]), 0);
    await signing;
    clearInterval(shipping);
    await leader.setSigning('plain.test', signingFor('plain.test'));
    ship(log, [replica, late]);
    expect(firstDifference(view(replica, zones), view(leader, zones))).toBeNull();
    expect(firstDifference(view(late, zones), view(leader, zones))).toBeNull();

    await leader.setSigning('signed.test', null);
    ship(log, [replica, late]);
    expect(firstDifference(view(replica, zones), view(leader, zones))).toBeNull();
    expect(replica.lookup('signed.test', 'DNSKEY', true).kind).toBe('nodata');
  });

  it('drops the names of a zone deleted and imported again in one batch, and a zone deleted for good', () => {
    const leader = new ZoneIndex();
    const log = new IndexChangeLog(leader);
    const replica = new ZoneIndex();
    leader.putZone(def('gone.test', 1));
    leader.putZone(def('again.test', 1));
    leader.setRRset('again.test', 'old', 'A', 60, ['192.0.2.1']);
    leader.setRRset('gone.test', 'www', 'A', 60, ['192.0.2.2']);
    ship(log, [replica]);
    expect(replica.lookup('old.again.test', 'A').kind).toBe('answer');

    leader.removeZone('again.test');
    leader.putZone(def('again.test', 5, '3'));
    leader.setRRset('again.test', 'new', 'A', 60, ['192.0.2.3'], { accountId: '3', domain: 'new.again.test' });
    leader.removeZone('gone.test');
    ship(log, [replica]);
    expect(replica.lookup('old.again.test', 'A').kind).toBe('nxdomain');
    expect(replica.lookup('new.again.test', 'A')).toMatchObject({ kind: 'answer', accountId: '3' });
    expect(replica.lookup('www.gone.test', 'A').kind).toBe('refused');
    expect(
      firstDifference(view(replica, ['again.test', 'gone.test']), view(leader, ['again.test', 'gone.test'])),
    ).toBeNull();
  });

  it('moves an unsigned zone serial alone as a zone defined anew would serve it, and ships only the serial', () => {
    const leader = new ZoneIndex();
    const log = new IndexChangeLog(leader);
    const replica = new ZoneIndex();
    leader.putZone(def('dyn.test', 1));
    leader.setRRset('dyn.test', 'h', 'A', 60, ['192.0.2.1']);
    ship(log, [replica]);
    const soaBytes = (index: ZoneIndex) => {
      const zone = index.zoneState('dyn.test')!;
      const apex = zone.nodes.get(zone.key)!;
      return [apex.rrsets.get(6)!.encoded, zone.negativeSoa.encoded].flat().map((b) => b.toString('hex'));
    };
    for (const serial of [2, 3, 0xfffffffe]) {
      leader.setRRset('dyn.test', 'h', 'A', 60, [`192.0.2.${serial & 0xff}`]);
      leader.putZone(def('dyn.test', serial));
      const batch = log.drain()!;
      applyIndexBatch(replica, batch);
      // The definition, negative SOA and apex are not in it: the name changed and the serial.
      expect(batch.byteLength).toBeLessThan(160);
      const anew = new ZoneIndex();
      anew.putZone(def('dyn.test', serial));
      anew.setRRset('dyn.test', 'h', 'A', 60, [`192.0.2.${serial & 0xff}`]);
      expect(soaBytes(leader)).toEqual(soaBytes(anew));
      expect(soaBytes(replica)).toEqual(soaBytes(anew));
      expect(leader.zoneVersion('dyn.test')!.serial).toBe(serial);
      expect(firstDifference(view(leader, ['dyn.test']), view(anew, ['dyn.test']))).toBeNull();
      expect(firstDifference(view(replica, ['dyn.test']), view(anew, ['dyn.test']))).toBeNull();
    }
    // Anything else of the definition: the zone as it was put, shipped whole.
    leader.putZone({ ...def('dyn.test', 9), ttl: 600 });
    ship(log, [replica]);
    expect(replica.zoneState('dyn.test')!.def.ttl).toBe(600);
    expect(firstDifference(view(replica, ['dyn.test']), view(leader, ['dyn.test']))).toBeNull();
  });

  it('replaces everything from a snapshot (a new leader)', () => {
    const first = new ZoneIndex();
    first.putZone(def('stale.test', 1));
    first.setRRset('stale.test', 'www', 'A', 60, ['192.0.2.1']);
    const replica = new ZoneIndex();
    applyIndexBatch(replica, indexSnapshot(first));
    const second = new ZoneIndex();
    second.putZone(def('fresh.test', 2));
    applyIndexBatch(replica, indexSnapshot(second, ['carried']));
    expect(replica.zoneNames()).toEqual(['fresh.test']);
    expect(applyIndexBatch(replica, indexSnapshot(second, ['carried']))).toEqual(['carried']);
  });
});
