import { useState } from 'preact/hooks';
import { api, seg } from '../../api/client';
import { ConfirmButton } from '../../components/confirm';
import { dateTime } from '../../components/format';
import { Form, TextField } from '../../components/forms';
import { ErrorNotice } from '../../components/notices';
import { useAction } from '../../components/resource';
import { CopyBlock } from '../../components/secret';
import { DataTable } from '../../components/table';
import type { SettingsFormProps } from './setting-forms';
import type { EmailAuthSettings } from './types';

type GeneratedKey = NonNullable<EmailAuthSettings['generated_key']>;

/** A generated key's private half: shown once, here only, with copy and download; never stored by the service. */
function PrivateKeyOnce({ generated, zone, onDone }: { generated: GeneratedKey; zone: string; onDone: () => void }) {
  return (
    <section class="card notice-warning" aria-labelledby="dkim-private">
      <h3 id="dkim-private">Private key for selector “{generated.selector}”</h3>
      <CopyBlock
        label="DKIM private key (PEM)"
        text={generated.private_key.trim()}
        filename={`${generated.selector}._domainkey.${zone}.key.pem`}
        note="Shown once: the service does not keep it. Install it in your mail server's DKIM signer now."
      />
      <button type="button" onClick={onDone}>
        I have saved it
      </button>
    </section>
  );
}

export function DkimKeys(props: SettingsFormProps) {
  const [selector, setSelector] = useState('');
  const [generated, setGenerated] = useState<GeneratedKey | null>(null);
  const generate = useAction(async () => {
    const answer = await api.put<EmailAuthSettings>(`${props.base}/dkim/${seg(selector.trim().toLowerCase())}`, {
      generate: true,
    });
    const { generated_key, ...settings } = answer;
    props.onSaved(settings);
    setGenerated(generated_key ?? null);
    setSelector('');
  });
  const remove = useAction(async (name: string) => {
    await api.del(`${props.base}/dkim/${seg(name)}`);
    props.onSaved(await api.get<EmailAuthSettings>(props.base));
  });
  return (
    <div class="stack">
      {generated && (
        <PrivateKeyOnce generated={generated} zone={props.settings.zone} onDone={() => setGenerated(null)} />
      )}
      <ErrorNotice error={remove.error} />
      <DataTable
        caption="DKIM keys"
        rows={props.settings.dkim}
        rowKey={(k) => k.selector}
        empty="No DKIM keys yet."
        columns={[
          { header: 'Selector', cell: (k) => <code>{k.selector}</code> },
          {
            header: 'Key',
            cell: (k) => `${k.key_type.toUpperCase()} ${k.key_bits} bits${k.generated ? ', generated here' : ''}`,
          },
          { header: 'Added', cell: (k) => dateTime(k.created_at) },
          {
            header: 'Remove',
            cell: (k) => (
              <ConfirmButton
                label="Remove"
                confirmLabel={`Remove key ${k.selector}`}
                busy={remove.busy}
                onConfirm={() => void remove.run(k.selector)}
              />
            ),
          },
        ]}
      />
      <Form
        label="Generate a DKIM key"
        submitLabel="Generate key"
        busyLabel="Generating…"
        busy={generate.busy}
        error={generate.error}
        onSubmit={() => void generate.run()}
      >
        <TextField
          label="Selector"
          name="selector"
          value={selector}
          onValue={setSelector}
          required
          placeholder="mail2026"
          hint="A new RSA 2048 key is made; its public half is published at <selector>._domainkey."
        />
      </Form>
    </div>
  );
}
