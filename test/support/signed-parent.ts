import { DnsServer, ZoneIndex } from '../../libs/dns-server';
import { CSK_FLAGS, dnskeyRdata, dsRdata, dsText, generateKey } from '../../libs/dnssec/keys';
import { zoneSigning } from '../../libs/dnssec/zone-signing';
import { servedKey } from '../../libs/dnssec/testing/served-key';

export interface SignedParent {
  index: ZoneIndex;
  port: number;
  /** The trust anchor for validators: the parent zone's own DS. */
  anchor: string[];
  /** What the registrar does: the child's DS RRset at the parent (lines as the API's `ds`), [] for none. */
  setChildDs(ds: string[]): void;
  stop(): Promise<void>;
}

/**
 * The world above a zone of the service: the parent zone `test`, signed, delegating `child`
 * to the service and holding its DS. A test plays the registrar by changing the DS, and
 * points VERIFY_RESOLVER here so the service sees the DS as validators do.
 */
export async function startSignedParent(child: string): Promise<SignedParent> {
  const parent = 'test';
  const label = child.slice(0, -(parent.length + 1));
  const index = new ZoneIndex();
  index.putZone({
    name: parent,
    ownerAccountId: null,
    soa: {
      mname: 'ns.test',
      rname: 'hostmaster.test',
      serial: 1,
      refresh: 3600,
      retry: 600,
      expire: 604800,
      minimum: 60,
    },
    ttl: 3600,
    nameservers: ['ns.test'],
  });
  index.setRRset(parent, label, 'NS', 3600, ['ns1.example.net.']);
  const key = generateKey(13);
  const dnskey = dnskeyRdata(CSK_FLAGS, 13, key.publicKey);
  const now = Math.floor(Date.now() / 1000);
  const signer = servedKey(key);
  index.setSigning(
    parent,
    zoneSigning(parent, [signer], { inception: now - 3600, expiration: now + 86400 }, { kind: 'none' }, 3600),
  );
  const server = new DnsServer({ host: '127.0.0.1', port: 0, index });
  const { port } = await server.start();
  return {
    index,
    port,
    anchor: [dsText(parent, 3600, dsRdata(parent, dnskey))],
    setChildDs(ds) {
      index.setRRset(
        parent,
        label,
        'DS',
        60,
        ds.map((line) => line.split(/\s+/).slice(4).join(' ')),
      );
    },
    stop: () => server.stop(),
  };
}
