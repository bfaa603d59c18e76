/**
 * `GET /zones/{zone}?as_of=`: the zone as it was (contract §19), answered by the history
 * context, which depends on zones; the port keeps zones free of it (no import cycle).
 */
export interface ZoneTimeTravel {
  zoneAsOf(accountId: number, zone: string, asOf: unknown): Promise<object>;
}
export const ZONE_TIME_TRAVEL = Symbol('ZONE_TIME_TRAVEL');
