import { useState } from 'preact/hooks';
import { api, seg } from '../../api/client';
import { Link } from '../../app/link';
import type { ScreenProps } from '../../app/screen';
import { Loaded } from '../../components/notices';
import { useResource } from '../../components/resource';
import { DkimKeys } from './dkim';
import { ZoneEventLog } from './events';
import { GeneratedRecords } from './records';
import { BimiForm, DmarcForm, MtaStsForm, SpfForm, TlsRptForm } from './setting-forms';
import type { EmailAuthSettings, LiveRecords } from './types';

const SECTIONS = [
  { id: 'dmarc', title: 'DMARC', Form: DmarcForm },
  { id: 'spf', title: 'SPF', Form: SpfForm },
  { id: 'dkim', title: 'DKIM', Form: DkimKeys },
  { id: 'mta-sts', title: 'MTA-STS', Form: MtaStsForm },
  { id: 'tls-rpt', title: 'TLS-RPT', Form: TlsRptForm },
  { id: 'bimi', title: 'BIMI', Form: BimiForm },
] as const;

export function EmailAuthZoneScreen({ params }: ScreenProps) {
  const base = `/email-auth/domains/${seg(params.zone)}`;
  const settings = useResource(() => api.get<EmailAuthSettings>(base), [base]);
  const live = useResource(() => api.get<LiveRecords>(`${base}/live`), [base]);
  /** Bumped by every save: the event log loads again and shows what the save recorded. */
  const [saves, setSaves] = useState(0);
  const onSaved = (s: EmailAuthSettings) => {
    settings.set(s);
    setSaves((n) => n + 1);
    void live.reload();
  };
  return (
    <Loaded resource={settings}>
      {(s) => (
        <div class="stack">
          <section class="card" aria-labelledby="records">
            <h2 id="records">{s.zone}: records</h2>
            <p class="hint">
              These TXT records are served by this service's DNS at once. If the zone is hosted elsewhere, publish them
              there too; “Live in DNS” says what the world sees.
            </p>
            <GeneratedRecords settings={s} live={live} />
            <p>
              {s.dmarc ? (
                <Link to={`/email-auth/${seg(s.zone)}/wizard`}>Open the DMARC wizard</Link>
              ) : (
                <span class="hint">Save a DMARC policy to start the DMARC wizard.</span>
              )}
            </p>
          </section>
          {SECTIONS.map(({ id, title, Form }) => (
            <section key={id} class="card" aria-labelledby={`section-${id}`}>
              <h2 id={`section-${id}`}>{title}</h2>
              <Form base={base} settings={s} onSaved={onSaved} />
            </section>
          ))}
          <section class="card" aria-labelledby="zone-events">
            <h2 id="zone-events">Event log</h2>
            <ZoneEventLog base={base} saves={saves} />
          </section>
        </div>
      )}
    </Loaded>
  );
}
