import { Inject, Injectable } from '@nestjs/common';
import { promises as dns } from 'node:dns';
import { GeneratedTxt } from '../domain/records';
import { APP_CONFIG, AppConfig } from '../../shared/config';

export interface LiveRecord {
  name: string;
  type: 'TXT';
  value: string;
  live: boolean;
  /** What the resolver answered at that name for this record's family (its version tag). */
  found: string[];
  error: string | null;
}

/**
 * Whether each record a domain needs is live in DNS now: asked of VERIFY_RESOLVER (the
 * same resolver zone verification uses, i.e. "the world"), or the system resolvers when
 * unset. A record is live when some TXT at its name reads exactly the expected text.
 */
@Injectable()
export class LiveRecords {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async check(zone: string, needed: GeneratedTxt[]): Promise<LiveRecord[]> {
    const resolver = new dns.Resolver({ timeout: 2000, tries: 2 });
    if (this.config.verifyResolver) resolver.setServers([this.config.verifyResolver]);
    const names = [...new Set(needed.map((r) => fqdn(zone, r.subname)))];
    const answers = new Map(
      await Promise.all(
        names.map(
          async (name) =>
            [
              name,
              await resolver.resolveTxt(name).then(
                (r) => r.map((chunks) => chunks.join('')),
                (e: NodeJS.ErrnoException) => e.code ?? 'error',
              ),
            ] as const,
        ),
      ),
    );
    return needed.map((r) => {
      const name = fqdn(zone, r.subname);
      const answer = answers.get(name)!;
      const found = Array.isArray(answer) ? answer.filter((t) => t.startsWith(r.family)) : [];
      return {
        name,
        type: 'TXT',
        value: r.value,
        live: found.includes(r.value),
        found,
        error: Array.isArray(answer) ? null : answer,
      };
    });
  }
}

const fqdn = (zone: string, subname: string) => (subname ? `${subname}.${zone}` : zone);
