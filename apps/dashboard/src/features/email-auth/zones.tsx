import { seg } from '../../api/client';
import { Link } from '../../app/link';
import type { ScreenProps } from '../../app/screen';
import { DataTable } from '../../components/table';

const TIER = { none: 'None', standard: 'Standard', enterprise: 'Enterprise' } as const;

/** The zones in the account's Email Authentication add-on (set by the operators). */
export function EmailAuthZonesScreen({ account }: ScreenProps) {
  const zones = account.email_auth.domains.map((name) => ({ name }));
  return (
    <section class="card" aria-labelledby="ea-zones">
      <h2 id="ea-zones">Zones in your add-on</h2>
      <p class="hint">
        Email Authentication add-on: {TIER[account.email_auth.tier]} tier. Zones are added to it by the service's
        operators; each must be one of your verified zones.
      </p>
      <DataTable
        caption="Email authentication zones"
        rows={zones}
        rowKey={(z) => z.name}
        empty="No zones in your add-on yet. Ask the operators to add one."
        columns={[
          { header: 'Zone', cell: (z) => <Link to={`/email-auth/${seg(z.name)}`}>{z.name}</Link> },
          {
            header: 'DMARC wizard',
            cell: (z) => <Link to={`/email-auth/${seg(z.name)}/wizard`}>Wizard for {z.name}</Link>,
          },
        ]}
      />
    </section>
  );
}
