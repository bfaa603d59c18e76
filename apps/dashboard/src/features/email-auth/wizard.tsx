import { useMemo, useRef, useState } from 'preact/hooks';
import { api, seg } from '../../api/client';
import { Link } from '../../app/link';
import type { ScreenProps } from '../../app/screen';
import { TimeChart } from '../../components/chart';
import { dateTime } from '../../components/format';
import { TextField } from '../../components/forms';
import { ErrorNotice, Loaded, Notice } from '../../components/notices';
import { useAction, useResource } from '../../components/resource';
import { DataTable } from '../../components/table';
import type { Advanced, Blocker, NightPoint, Progression, Recommendation, StageName } from './types';

/** The seed's five stages, in order, as the owner reads them. */
const STAGES: { name: StageName; label: string; partial: boolean }[] = [
  { name: 'monitoring', label: 'Monitoring (p=none)', partial: false },
  { name: 'quarantine_partial', label: 'Quarantine, part of mail', partial: true },
  { name: 'quarantine_full', label: 'Quarantine, all mail', partial: false },
  { name: 'reject_partial', label: 'Reject, part of mail', partial: true },
  { name: 'reject_full', label: 'Reject, all mail', partial: false },
];
const stageOf = (name: StageName) => STAGES.find((s) => s.name === name)!;

const BLOCKERS: Record<Blocker, string> = {
  insufficient_data: 'Not enough reported mail yet (at least 100 messages at this stage).',
  low_pass_rate: 'The DMARC pass rate is below what the next stage needs.',
  min_days_not_met: 'The zone has not spent the recommended minimum number of days at this stage.',
};

/** low_pass_rate with no mail at the stage: there is no rate to be low (the service's 0 means nothing to divide). */
const NO_PASS_RATE =
  'No pass rate yet: the next stage needs a measured DMARC pass rate, and no mail has been reported at this stage.';

function StageSteps({ current }: { current: StageName }) {
  const at = STAGES.findIndex((s) => s.name === current);
  return (
    <ol class="steps" aria-label="DMARC stages">
      {STAGES.map((s, i) => (
        <li
          key={s.name}
          class={i < at ? 'step-done' : i === at ? 'step-current status-ok' : 'step-todo'}
          aria-current={i === at ? 'step' : undefined}
        >
          <strong>{s.label}</strong>
        </li>
      ))}
    </ol>
  );
}

/** A night without reported messages has no pass rate (the API's 0 means "nothing to divide"): a gap, not a 0. */
function PassRateChart({ nights }: { nights: NightPoint[] }) {
  const times = useMemo(() => nights.map((n) => Date.parse(`${n.night}T02:00:00Z`) / 1000), [nights]);
  const series = useMemo(
    () => ({ label: 'DMARC pass rate', unit: '%', values: nights.map((n) => (n.messages > 0 ? n.pass_rate : null)) }),
    [nights],
  );
  if (nights.length === 0)
    return (
      <p class="empty">No nightly figures yet: the nightly job runs at 02:00 UTC once aggregate reports arrive.</p>
    );
  if (!nights.some((n) => n.messages > 0)) {
    return (
      <p class="empty">
        No pass rate yet: no aggregate report has counted mail for this zone at this stage. The nightly job (02:00 UTC)
        adds a point once reports arrive.
      </p>
    );
  }
  return (
    <TimeChart
      title="DMARC pass rate per night (%), over the job's 7-day window"
      times={times}
      series={series}
      yRange={[0, 100]}
      tickFormat="{MM}-{DD}"
    />
  );
}

/** Advancing changes the published policy: a modal dialog says what will change and asks again. */
function AdvanceDialog({
  next,
  onAdvance,
}: {
  next: NonNullable<Recommendation['next_config']> & { stage: StageName };
  onAdvance: (percentage: number | undefined) => Promise<void>;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const partial = stageOf(next.stage).partial;
  const [pct, setPct] = useState(String(next.percentage));
  const advance = useAction(async () => {
    await onAdvance(partial ? Number(pct) : undefined);
    dialog.current?.close();
  });
  return (
    <>
      <button type="button" onClick={() => dialog.current?.showModal()}>
        Advance to {stageOf(next.stage).label}…
      </button>
      <dialog ref={dialog} class="dialog" aria-labelledby="advance-title" aria-describedby="advance-what">
        <h2 id="advance-title">Advance to {stageOf(next.stage).label}?</h2>
        <p id="advance-what">
          The <code>_dmarc</code> record will ask receivers to apply <strong>p={next.policy}</strong> to{' '}
          {partial ? 'the share of failing mail you choose' : `${next.percentage}% of failing mail`}. Mail that fails
          DMARC
          {next.policy === 'reject' ? ' will be refused.' : ' will go to spam folders.'}
        </p>
        {partial && (
          <TextField
            label="Percentage of mail"
            name="advance_percentage"
            type="number"
            min={1}
            max={100}
            value={pct}
            onValue={setPct}
            required
            hint="1 to 100; start small and raise it later."
          />
        )}
        <ErrorNotice error={advance.error} />
        <div class="button-row">
          <button type="button" class="button-danger" disabled={advance.busy} onClick={() => void advance.run()}>
            Yes, advance
          </button>
          <button type="button" class="button-secondary" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
        </div>
      </dialog>
    </>
  );
}

export function DmarcWizardScreen({ params }: ScreenProps) {
  const zone = params.zone;
  const base = `/email-auth/dmarc/wizard/${seg(zone)}`;
  // Opening the wizard (a GET) starts the progression at monitoring the first time.
  const progression = useResource(() => api.get<Progression>(base), [base]);
  const advice = useResource(async () => {
    if (!progression.data) return null;
    const [recommendation, nights] = await Promise.all([
      api.get<Recommendation>(`${base}/recommendation`),
      api.get<{ nights: NightPoint[] }>(`${base}/nights`),
    ]);
    return { recommendation, nights: nights.nights };
  }, [base, progression.data]);
  const [advanced, setAdvanced] = useState<string | null>(null);
  const onAdvance = async (percentage: number | undefined) => {
    const answer = await api.post<Advanced>(`${base}/advance`, {
      confirm: true,
      ...(percentage === undefined ? {} : { percentage }),
    });
    setAdvanced(answer.message);
    await progression.reload();
  };
  return (
    <Loaded resource={progression}>
      {(p) => (
        <div class="stack">
          {advanced && <Notice kind="success">{advanced}.</Notice>}
          <section class="card" aria-labelledby="stage">
            <h2 id="stage">{zone}: current stage</h2>
            <StageSteps current={p.current_stage} />
            <dl class="facts">
              <dt>Policy</dt>
              <dd>
                p={p.policy}, {p.percentage}% of mail
              </dd>
              <dt>At this stage since</dt>
              <dd>{dateTime(p.entered_at)}</dd>
              <dt>Days counted at this stage</dt>
              <dd>
                {/* The service counts a day per nightly run (02:00 UTC), not hours since entering. */}
                {p.days_at_current_stage} of {p.recommended_min_days} recommended days (one per nightly run at 02:00
                UTC)
              </dd>
              <dt>Messages reported</dt>
              <dd>{p.messages_at_stage}</dd>
              <dt>DMARC pass rate</dt>
              <dd>
                {p.messages_at_stage > 0
                  ? `${p.pass_rate_at_stage}%`
                  : 'No data yet: no reported messages at this stage'}
              </dd>
            </dl>
            <p>
              <Link to={`/email-auth/${seg(zone)}`}>Email authentication settings of {zone}</Link>
            </p>
          </section>
          <Loaded resource={advice}>
            {(a) =>
              a && (
                <>
                  <section class="card" aria-labelledby="recommendation">
                    <h2 id="recommendation">Recommendation</h2>
                    <Notice
                      kind={
                        a.recommendation.ready_to_advance || a.recommendation.recommendation === 'full_enforcement'
                          ? 'success'
                          : 'info'
                      }
                    >
                      <p>{a.recommendation.reason}</p>
                    </Notice>
                    {a.recommendation.blockers.length > 0 && (
                      <>
                        <h3>Before advancing</h3>
                        <ul class="blockers">
                          {a.recommendation.blockers.map((b) => (
                            <li key={b}>
                              {b === 'low_pass_rate' && p.messages_at_stage === 0 ? NO_PASS_RATE : BLOCKERS[b]}
                            </li>
                          ))}
                        </ul>
                      </>
                    )}
                    {a.recommendation.ready_to_advance &&
                      a.recommendation.next_stage &&
                      a.recommendation.next_config && (
                        <AdvanceDialog
                          next={{ ...a.recommendation.next_config, stage: a.recommendation.next_stage }}
                          onAdvance={onAdvance}
                        />
                      )}
                  </section>
                  <section class="card" aria-labelledby="pass-rate">
                    <h2 id="pass-rate">Pass rate</h2>
                    <PassRateChart nights={a.nights} />
                  </section>
                </>
              )
            }
          </Loaded>
          <section class="card" aria-labelledby="history">
            <h2 id="history">Earlier stages</h2>
            <DataTable
              caption="Stage history"
              rows={p.stage_history}
              rowKey={(h) => h.entered_at}
              empty="No earlier stages yet."
              columns={[
                { header: 'Stage', cell: (h) => stageOf(h.stage).label },
                { header: 'Policy', cell: (h) => `p=${h.policy}, ${h.percentage}%` },
                { header: 'From', cell: (h) => dateTime(h.entered_at) },
                { header: 'To', cell: (h) => dateTime(h.exited_at) },
                { header: 'Days', cell: (h) => h.days, numeric: true },
                { header: 'Pass rate', cell: (h) => (h.messages > 0 ? `${h.pass_rate}%` : 'no data'), numeric: true },
              ]}
            />
          </section>
        </div>
      )}
    </Loaded>
  );
}
