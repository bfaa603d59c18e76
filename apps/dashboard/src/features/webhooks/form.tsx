import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { ApiError } from '../../api/client';
import { Checkbox, Form, TextField } from '../../components/forms';
import { EVENT_TYPES } from './types';

export interface WebhookFields {
  url: string;
  event_types: string[];
  description: string | null;
}

/** URL, event types (all, or a choice) and description: the fields of creating and editing an endpoint. */
export function WebhookForm({
  initial,
  submitLabel,
  busyLabel,
  busy,
  error,
  label,
  onSubmit,
  actions,
}: {
  initial?: WebhookFields;
  submitLabel: string;
  busyLabel: string;
  busy: boolean;
  error: ApiError | null;
  label: string;
  onSubmit: (fields: WebhookFields) => void;
  actions?: ComponentChildren;
}) {
  const [url, setUrl] = useState(initial?.url ?? '');
  const [all, setAll] = useState(initial ? initial.event_types.includes('*') : true);
  const [types, setTypes] = useState<string[]>(
    initial && !initial.event_types.includes('*') ? initial.event_types : [],
  );
  const [description, setDescription] = useState(initial?.description ?? '');
  return (
    <Form
      label={label}
      busy={busy}
      error={error}
      submitLabel={submitLabel}
      busyLabel={busyLabel}
      actions={actions}
      onSubmit={() =>
        onSubmit({ url, event_types: all ? ['*'] : types, description: description.trim() ? description : null })
      }
    >
      <TextField
        label="Endpoint URL"
        type="url"
        value={url}
        onValue={setUrl}
        required
        maxLength={2048}
        hint="An https URL that resolves to a public address."
      />
      <fieldset>
        <legend>Events</legend>
        <Checkbox label="All events" checked={all} onChecked={setAll} />
        {!all &&
          EVENT_TYPES.map((e) => (
            <Checkbox
              key={e.type}
              label={e.label}
              checked={types.includes(e.type)}
              onChecked={(on) => setTypes(on ? [...types, e.type] : types.filter((t) => t !== e.type))}
            />
          ))}
      </fieldset>
      <TextField label="Description (optional)" value={description} onValue={setDescription} maxLength={500} />
    </Form>
  );
}
