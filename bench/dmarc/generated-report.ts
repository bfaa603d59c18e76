/** Generated DMARC aggregate reports of known size and totals, for the ingestion bench and tests. */

/** One generated aggregate report of `records` rows (bench and large-report tests). */
export function generatedAggregateReport(
  records: number,
  options: { reportId?: string; domain?: string; org?: string; begin?: number } = {},
): Buffer {
  const domain = options.domain ?? 'example.com';
  const begin = options.begin ?? 1_700_000_000;
  const parts: string[] = [
    `<?xml version="1.0" encoding="UTF-8"?><feedback><report_metadata><org_name>${options.org ?? 'bench.example'}</org_name>` +
      `<email>dmarc@bench.example</email><report_id>${options.reportId ?? 'bench-1'}</report_id>` +
      `<date_range><begin>${begin}</begin><end>${begin + 86399}</end></date_range></report_metadata>` +
      `<policy_published><domain>${domain}</domain><adkim>r</adkim><aspf>r</aspf><p>none</p><sp>none</sp><pct>100</pct></policy_published>`,
  ];
  for (let i = 0; i < records; i++) {
    const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    const pass = i % 4 !== 0;
    parts.push(
      `<record><row><source_ip>${ip}</source_ip><count>${(i % 7) + 1}</count><policy_evaluated><disposition>none</disposition>` +
        `<dkim>${pass ? 'pass' : 'fail'}</dkim><spf>fail</spf></policy_evaluated></row><identifiers><header_from>${domain}</header_from></identifiers>` +
        `<auth_results><dkim><domain>${domain}</domain><result>${pass ? 'pass' : 'fail'}</result></dkim><spf><domain>${domain}</domain><result>fail</result></spf></auth_results></record>`,
    );
  }
  parts.push('</feedback>');
  return Buffer.from(parts.join(''));
}

/** Message totals of a generated report: counts cycle 1..7, DKIM passes on 3 records of 4. */
export function generatedTotals(records: number): { messages: number; passing: number } {
  let messages = 0;
  let passing = 0;
  for (let i = 0; i < records; i++) {
    messages += (i % 7) + 1;
    if (i % 4 !== 0) passing += (i % 7) + 1;
  }
  return { messages, passing };
}
