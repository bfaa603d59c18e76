import type { ZoneIndex } from '../../libs/dns-server';

/**
 * Puts `zone` into the world, served by `nameservers`, its SOA naming `mname` (the first by default):
 * a zone hosted elsewhere.
 */
export function putWorldZone(world: ZoneIndex, zone: string, nameservers: string[], mname = nameservers[0]): void {
  world.putZone({
    name: zone,
    ownerAccountId: null,
    soa: { mname, rname: `hostmaster.${zone}`, serial: 1, refresh: 1, retry: 1, expire: 1, minimum: 60 },
    ttl: 60,
    nameservers,
  });
}

/**
 * "The world" as zone verification sees it (VERIFY_RESOLVER, and the parent's servers asked
 * at the same port): the parent of `zone` (the name one label up) is served by the world's
 * own DNS server, whose name server `ns.<parent>` has the address 127.0.0.1, and it
 * delegates `zone` to `nameservers` — the referral a registrar publishes.
 */
export function delegateInWorld(world: ZoneIndex, zone: string, nameservers: string[]): void {
  const parent = zone.slice(zone.indexOf('.') + 1);
  if (!world.hasZone(parent)) {
    putWorldZone(world, parent, [`ns.${parent}`]);
    world.setRRset(parent, 'ns', 'A', 60, ['127.0.0.1']);
  }
  world.setRRset(parent, zone.slice(0, -(parent.length + 1)), 'NS', 60, nameservers);
}
