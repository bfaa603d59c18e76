import { describe, expect, it } from '@jest/globals';
import { ApiError } from './client';
import { explain } from './explain';

/** The wire messages are the service's real answers (collected from a running server). */
const invalid = (message: string) => new ApiError(400, 'validation_failed', message);

describe('explain: API errors in words, by field', () => {
  it('splits a registration answer into one sentence per field, the wire text kept for details', () => {
    const e = explain(
      invalid(
        'username must be 3-32 characters of a-z, 0-9, _ and -; email must be an email address; password must be 10 to 256 characters',
      ),
    );
    expect(e.fields).toEqual({
      username: 'Use 3 to 32 characters: lowercase letters, digits, _ and -; for example home_office.',
      email: 'Enter an email address, for example you@example.com.',
      password: 'Use at least 10 characters (at most 256). A few unrelated words make a good password.',
    });
    expect(e.general).toBeNull();
    expect(e.wire).toContain('username must be 3-32');
  });

  it('tells a malformed host name from a name outside your zones, though the service words them alike', () => {
    const err = new ApiError(
      400,
      'invalid_fqdn',
      'fqdn must be a host name under a dynamic-DNS zone or one of your verified zones',
    );
    expect(explain(err, { fqdn: 'bad_name!.dyn.example.net' }).fields.fqdn).toMatch(/^Use letters, digits and hyphens/);
    expect(explain(err, { fqdn: 'home.other.net' }).fields.fqdn).toMatch(
      /^The name must end in one of the service's DDNS zones/,
    );
    expect(explain(new ApiError(409, 'fqdn_taken', 'home.dyn.example.net is already taken')).fields).toEqual({
      fqdn: 'This name is already in use. Choose another one.',
    });
  });

  it('says what is wrong with an address: its family, or a range the internet cannot reach', () => {
    expect(explain(invalid('record_ip must be an IPv4 address for record_type A')).fields.record_ip).toMatch(
      /^Enter an IPv4 address, for example 203\.0\.113\.7/,
    );
    expect(
      explain(
        invalid("record_ip: 10.0.0.1 is a private (RFC 1918) address, which is not accepted as a host's address"),
        { record_ip: '10.0.0.1' },
      ).fields.record_ip,
    ).toBe("10.0.0.1 is a private address, which the internet cannot reach. Enter the host's public address.");
    expect(explain(invalid('record_ip must be an IPv4 or IPv6 address')).fields.record_ip).toMatch(
      /IPv4 address .* or an IPv6 address/,
    );
  });

  it('maps record errors to the record form: TTL, name, the line of a bad record with an example', () => {
    expect(explain(invalid('records[0].ttl: must be an integer from 60 to 86400')).fields).toEqual({
      ttl: 'Use a TTL from 60 to 86400 seconds (one minute to one day).',
    });
    expect(
      explain(
        invalid(
          'records[0].subname: label "bad name" has characters other than letters, digits, "-" and "_", or starts or ends with "-"',
        ),
      ).fields.subname,
    ).toMatch(/or @ for the zone itself/);
    expect(
      explain(invalid('records[0].records[1]: invalid MX record "mail.example.": expected preference, exchange')).fields
        .records,
    ).toBe(
      '"mail.example." is not a valid MX record (expected preference, exchange). For example: 10 mail.example.com.',
    );
    expect(explain(invalid('records[0].records: a CNAME RRset holds exactly one record')).fields.records).toBe(
      'A CNAME points to exactly one name: keep one line.',
    );
    expect(explain(invalid('zone_file (LINE at garbage).type: must be one of A, AAAA')).fields.zone_file).toMatch(
      /A line of the zone file cannot be read/,
    );
  });

  it('says a lockout and how long it lasts; leaves other answers in the service words', () => {
    const locked = explain(
      new ApiError(
        429,
        'too_many_attempts',
        'Too many failed logins: password login is locked for 15 minutes; try again in 15 minute(s)',
        900,
      ),
    );
    expect(locked.general).toMatch(
      /^Too many wrong passwords for this account: password login is locked for 15 minutes\. Try again in 15 minutes \(at \d\d:\d\d UTC\)\.$/,
    );
    expect(explain(new ApiError(403, 'limit_reached', 'Monitoring limit reached for your plan'))).toEqual({
      fields: {},
      general: 'Monitoring limit reached for your plan',
      wire: null,
    });
    expect(explain(invalid('The request body must be a JSON object')).general).toBe(
      'The request body must be a JSON object',
    );
  });
});
