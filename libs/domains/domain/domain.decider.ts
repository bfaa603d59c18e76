import { Decider, unreachable } from '../../shared/decider';
import { AppError, conflict, notFound, validationFailed } from '../../shared/errors';
import { canonicalIp, Family, familyOf, familyOfType, RecordType } from './addresses';
import { Addresses, DomainEventUnion, MAX_HOST_TTL, MIN_HOST_TTL, recordTypeAfter } from './domain.events';

/** ddns.md: more than 10 changing updates in 10 minutes throttle a host. */
export const THROTTLE_MAX_CHANGES = 10;
export const THROTTLE_WINDOW_MS = 10 * 60_000;

export interface DomainState {
  status: 'none' | 'active' | 'deleted';
  id: number;
  accountId: number;
  fqdn: string;
  recordType: RecordType;
  ttl: number;
  addresses: Addresses;
  /** Times (ms) of the latest DDNS changes, newest last; only the last THROTTLE_MAX_CHANGES matter. */
  ddnsChanges: number[];
}

/** What a DDNS request asks of one family. */
export type FamilyChange = { kind: 'keep' } | { kind: 'set'; ip: string } | { kind: 'delete' };

export type DomainCommand =
  | {
      type: 'CreateDomain';
      domainId: number;
      accountId: number;
      fqdn: string;
      recordType: RecordType;
      recordIp: string;
      ttl: number;
      at: string;
    }
  | { type: 'DdnsUpdate'; accountId: number; ipv4: FamilyChange; ipv6: FamilyChange; at: string }
  | { type: 'DeleteDomain'; accountId: number; at: string }
  /**
   * A management edit (decision 0091): a family given an address is set, given null is
   * removed (the other family must remain), left out is kept; `ttl` when given. One append.
   */
  | { type: 'EditHost'; accountId: number; families: Partial<Record<Family, string | null>>; ttl?: number; at: string }
  /** Sets both families (and the TTL) back to earlier values (history restore); outside the DDNS throttle. */
  | { type: 'RestoreAddresses'; accountId: number; addresses: Addresses; ttl?: number; at: string };

export const DOMAIN_NOT_FOUND = 'Domain not found';

/** The DDNS answer `abuse`: refused by the throttle, nothing stored. */
export const throttled = () => new AppError(429, 'abuse', 'Too many address changes for this host; try again later');

const primaryFamily = (s: DomainState): Family => familyOfType(s.recordType);

function requireOwned(state: DomainState, accountId: number): void {
  // Other accounts' hosts do not exist for the caller (contract §1).
  if (state.status !== 'active' || state.accountId !== accountId) throw notFound(DOMAIN_NOT_FOUND);
}

/** Applies per-family changes; the primary family cannot be deleted (it is the domain's record_ip). */
function applyChanges(state: DomainState, changes: Record<Family, FamilyChange>): Addresses {
  const next = { ...state.addresses };
  for (const family of ['ipv4', 'ipv6'] as const) {
    const change = changes[family];
    if (change.kind === 'set') next[family] = change.ip;
    else if (change.kind === 'delete' && family !== primaryFamily(state)) next[family] = null;
  }
  return next;
}

const sameAddresses = (a: Addresses, b: Addresses) => a.ipv4 === b.ipv4 && a.ipv6 === b.ipv6;

const FAMILY_NAME: Record<Family, string> = { ipv4: 'IPv4', ipv6: 'IPv6' };

/** The canonical address for `family`, or a 400 naming the field. */
function addressOf(family: Family, given: string): string {
  const ip = canonicalIp(given);
  if (ip === null || familyOf(ip) !== family)
    throw validationFailed(`${family} must be an ${FAMILY_NAME[family]} address`);
  return ip;
}

function checkTtl(ttl: number): void {
  if (!Number.isInteger(ttl) || ttl < MIN_HOST_TTL || ttl > MAX_HOST_TTL)
    throw validationFailed(`ttl must be a whole number of seconds from ${MIN_HOST_TTL} to ${MAX_HOST_TTL}`);
}

/** A host always answers with at least one address: the last one cannot be removed (delete the host instead). */
function requireAnAddress(next: Addresses): void {
  if (next.ipv4 === null && next.ipv6 === null)
    throw validationFailed(
      'A host needs at least one address: it cannot remove its only one (delete the host instead)',
    );
}

export const domainDecider: Decider<DomainState, DomainCommand, DomainEventUnion> = {
  initialState: () => ({
    status: 'none',
    id: 0,
    accountId: 0,
    fqdn: '',
    recordType: 'A',
    ttl: 0,
    addresses: { ipv4: null, ipv6: null },
    ddnsChanges: [],
  }),

  evolve(state, event) {
    switch (event.type) {
      case 'DomainCreated': {
        const d = event.data;
        const family = familyOfType(d.record_type);
        return {
          status: 'active',
          id: d.domain_id,
          accountId: d.account_id,
          fqdn: d.fqdn,
          recordType: d.record_type,
          ttl: d.ttl,
          addresses: { ipv4: null, ipv6: null, [family]: d.record_ip },
          ddnsChanges: [],
        };
      }
      case 'DomainAddressesChanged': {
        const changes =
          event.data.source === 'ddns'
            ? [...state.ddnsChanges, Date.parse(event.data.at)].slice(-THROTTLE_MAX_CHANGES)
            : state.ddnsChanges;
        const addresses = { ...event.data.addresses };
        return { ...state, addresses, recordType: recordTypeAfter(state.recordType, addresses), ddnsChanges: changes };
      }
      case 'DomainTtlChanged':
        return { ...state, ttl: event.data.ttl };
      case 'DomainDeleted':
        return { ...state, status: 'deleted' };
      default:
        return unreachable(event);
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'CreateDomain': {
        if (state.status !== 'none') throw conflict('fqdn_taken', 'The domain already exists');
        const ip = canonicalIp(command.recordIp);
        if (ip === null || familyOf(ip) !== familyOfType(command.recordType)) {
          throw validationFailed(
            `record_ip must be an ${command.recordType === 'A' ? 'IPv4' : 'IPv6'} address for record_type ${command.recordType}`,
          );
        }
        return [
          {
            type: 'DomainCreated',
            data: {
              domain_id: command.domainId,
              account_id: command.accountId,
              fqdn: command.fqdn,
              record_type: command.recordType,
              record_ip: ip,
              ttl: command.ttl,
              created_at: command.at,
            },
          },
        ];
      }
      case 'DdnsUpdate': {
        requireOwned(state, command.accountId);
        const next = applyChanges(state, { ipv4: command.ipv4, ipv6: command.ipv6 });
        if (sameAddresses(next, state.addresses)) return [];
        // Only changing updates count and are refused: a client repeating its address gets nochg.
        const at = Date.parse(command.at);
        const recent = state.ddnsChanges.filter((t) => at - t < THROTTLE_WINDOW_MS);
        if (recent.length >= THROTTLE_MAX_CHANGES) throw throttled();
        return changed(state, next, 'ddns', command.at);
      }
      case 'EditHost': {
        requireOwned(state, command.accountId);
        const next = { ...state.addresses };
        for (const family of ['ipv4', 'ipv6'] as const) {
          const given = command.families[family];
          if (given !== undefined) next[family] = given === null ? null : addressOf(family, given);
        }
        requireAnAddress(next);
        if (command.ttl !== undefined) checkTtl(command.ttl);
        return [...changed(state, next, 'api', command.at), ...ttlChanged(state, command.ttl, command.at)];
      }
      case 'RestoreAddresses': {
        requireOwned(state, command.accountId);
        const next: Addresses = { ipv4: null, ipv6: null };
        for (const family of ['ipv4', 'ipv6'] as const) {
          const given = command.addresses[family];
          next[family] = given === null ? null : addressOf(family, given);
        }
        requireAnAddress(next);
        if (command.ttl !== undefined) checkTtl(command.ttl);
        return [...changed(state, next, 'api', command.at), ...ttlChanged(state, command.ttl, command.at)];
      }
      case 'DeleteDomain':
        requireOwned(state, command.accountId);
        return [
          {
            type: 'DomainDeleted',
            data: { domain_id: state.id, account_id: state.accountId, fqdn: state.fqdn, at: command.at },
          },
        ];
      default:
        return unreachable(command);
    }
  },
};

function changed(state: DomainState, next: Addresses, source: 'api' | 'ddns', at: string): DomainEventUnion[] {
  if (sameAddresses(next, state.addresses)) return [];
  return [
    {
      type: 'DomainAddressesChanged',
      data: { domain_id: state.id, account_id: state.accountId, fqdn: state.fqdn, addresses: next, source, at },
    },
  ];
}

function ttlChanged(state: DomainState, ttl: number | undefined, at: string): DomainEventUnion[] {
  if (ttl === undefined || ttl === state.ttl) return [];
  return [
    {
      type: 'DomainTtlChanged',
      data: { domain_id: state.id, account_id: state.accountId, fqdn: state.fqdn, ttl, at },
    },
  ];
}
