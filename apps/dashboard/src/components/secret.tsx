import { useId, useState } from 'preact/hooks';

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** Saves text as a file through the browser's download (no server round trip: the page already holds it). */
export function download(filename: string, text: string, type = 'text/plain'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * Text the user must take away (a new API key, backup codes, client configuration): shown
 * in a labelled read-only block with Copy and, optionally, Download.
 */
export function CopyBlock({
  label,
  text,
  filename,
  note,
}: {
  label: string;
  text: string;
  filename?: string;
  note?: string;
}) {
  const id = useId();
  const [status, setStatus] = useState('');
  return (
    <div class="copy-block">
      <p class="copy-label" id={`${id}-label`}>
        {label}
      </p>
      {note && <p class="hint">{note}</p>}
      <pre id={id} class="copy-text" tabIndex={0} aria-labelledby={`${id}-label`}>
        {text}
      </pre>
      <div class="button-row">
        <button
          type="button"
          class="button-secondary"
          onClick={async () =>
            setStatus(
              (await copyText(text))
                ? 'Copied to the clipboard.'
                : 'Copying is blocked here: select the text and copy it.',
            )
          }
        >
          Copy
        </button>
        {filename && (
          <button type="button" class="button-secondary" onClick={() => download(filename, text + '\n')}>
            Download
          </button>
        )}
        <span class="copy-status" role="status" aria-live="polite">
          {status}
        </span>
      </div>
    </div>
  );
}
