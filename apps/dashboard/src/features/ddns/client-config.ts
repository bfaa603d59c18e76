/**
 * Ready-to-paste configuration of real DDNS clients for one host (ddns.md: ddclient 3.10,
 * inadyn 2.10, router URL templates). The API key is a placeholder unless the page has just
 * made one (keys are shown only once, when made).
 */
export interface ClientConfigInput {
  fqdn: string;
  username: string;
  /** The service's address as the browser sees it, e.g. `dns.example.net` or `127.0.0.1:3000`. */
  host: string;
  https: boolean;
  /** A key made on this page for the host's clients; the placeholder otherwise. */
  key?: string;
}

export const KEY_PLACEHOLDER = 'YOUR_API_KEY';

export function ddclientConfig({ fqdn, username, host, https, key = KEY_PLACEHOLDER }: ClientConfigInput): string {
  return [
    '# /etc/ddclient.conf (mode 600)',
    'daemon=300',
    // use=web works in ddclient 3.10 (Debian bookworm) and, deprecated, in 3.11+.
    `use=web, web=${https ? 'https' : 'http'}://${host}/domains/nic/checkip`,
    'protocol=dyndns2',
    `ssl=${https ? 'yes' : 'no'}`,
    `server=${host}`,
    'script=/domains/nic/update',
    `login=${username}`,
    `password=${key}`,
    fqdn,
  ].join('\n');
}

export function inadynConfig({ fqdn, username, host, https, key = KEY_PLACEHOLDER }: ClientConfigInput): string {
  return [
    '# /etc/inadyn.conf',
    'period = 300',
    'allow-ipv6 = true',
    'custom accountdns {',
    `    ssl = ${https ? 'true' : 'false'}`,
    `    username = ${username}`,
    `    password = ${key}`,
    `    checkip-server = ${host}`,
    '    checkip-path = /domains/nic/checkip',
    `    ddns-server = ${host}`,
    '    ddns-path = "/domains/nic/update?hostname=%h&myip=%i"',
    '    ddns-response = { good, nochg }',
    `    hostname = { ${fqdn} }`,
    '}',
  ].join('\n');
}

/** Routers with a "custom DynDNS URL" field; `<ipaddr>` is the usual placeholder (FRITZ!Box and others). */
export function routerUrl({ fqdn, username, host, https, key = KEY_PLACEHOLDER }: ClientConfigInput): string {
  const base = `${https ? 'https' : 'http'}://${host}/domains/nic/update`;
  return `${base}?hostname=${encodeURIComponent(fqdn)}&myip=<ipaddr>&username=${encodeURIComponent(username)}&password=${encodeURIComponent(key)}`;
}

export function curlCommand({ fqdn, username, host, https, key = KEY_PLACEHOLDER }: ClientConfigInput): string {
  return `curl -u '${username}:${key}' '${https ? 'https' : 'http'}://${host}/domains/nic/update?hostname=${encodeURIComponent(fqdn)}'`;
}
